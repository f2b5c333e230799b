export async function runMicroSuite(_o: { timeMs: number; log: (l: string) => void }): Promise<string> { return '## Micro-benchmarks\n\n_not yet written_\n'; }
