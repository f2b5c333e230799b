/**
 * Creating a directory and its missing parents, one level at a time. Node's `mkdir(dir, { recursive:
 * true })` never returns on a path whose parent exists but cannot hold children: under `/proc` (the
 * kernel answers ENOENT for the child, so Node creates the parent, gets EEXIST, and tries the child
 * again, for ever, at full CPU) or below a dangling symbolic link. Here each missing level is created
 * once, top down, and the first refusal is the answer.
 * @module
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The `code` of a failed system call, if it has one. */
function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function isDirectory(at: string): boolean {
  try {
    return statSync(at).isDirectory();
  } catch {
    return false; // the caller throws mkdir's own error, which names the path
  }
}

/**
 * Creates `dir` and the parents it lacks (as `mkdir -p`); an existing directory is fine. Throws the
 * system's error (ENOENT, ENOTDIR, EACCES, EROFS …) of the first level that cannot be created.
 */
export function makeDirectorySync(dir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      // Whatever exists here (a directory, or a file that the next mkdir refuses with ENOTDIR) ends the walk up.
      statSync(at);
      break;
    } catch (err) {
      if (codeOf(err) !== 'ENOENT') throw err;
    }
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (err) {
      // Another process created it meanwhile: fine when it is a directory. Else (a dangling link) its own error.
      if (codeOf(err) !== 'EEXIST' || !isDirectory(level)) throw err;
    }
  }
}
