export async function runHttpSuite(_o: { durationS: number; products: number; log: (l: string) => void }): Promise<string> { return '## HTTP\n\n_not yet written_\n'; }
