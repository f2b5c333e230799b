/**
 * The machine a run happened on, for the report header.
 * @module
 */
import { cpus, freemem, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  freeMemoryGb: number;
  loadAverage: string;
  node: string;
  platform: string;
  date: string;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGb: Math.round(totalmem() / 1e9 * 10) / 10,
    freeMemoryGb: Math.round(freemem() / 1e9 * 10) / 10,
    loadAverage: loadavg().map((x) => x.toFixed(2)).join(' / '),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
  };
}
