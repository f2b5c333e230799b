/**
 * Reading the config file: JSON of the shape in docs/design.md ("Configuration and CLI"), validated by the engine's
 * `validateEngineOptions`. Every failure is a {@link ConfigFileError} whose message names the file
 * or the bad key, so the CLI can print it without a stack trace.
 * @module
 */
import { readFileSync } from 'node:fs';
import { isAisleError, validateEngineOptions, type EngineOptions } from '@aisle/engine';

/** A config file that cannot be used; `message` is written for the operator. */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

/** Reads, parses and validates a config file. */
export function loadConfigFile(file: string): EngineOptions {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigFileError(`config: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let raw: unknown;
  try {
    // A UTF-8 byte order mark (Windows editors write one) is not JSON; RFC 8259 lets a reader skip it.
    raw = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (err) {
    throw new ConfigFileError(`config: ${file} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return validateEngineOptions(raw);
  } catch (err) {
    if (isAisleError(err)) throw new ConfigFileError(`${err.message} (in ${file})`);
    throw err;
  }
}
