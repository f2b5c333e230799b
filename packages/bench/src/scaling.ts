export async function runScaling(_o: { sizes: number[]; queries: number; log: (l: string) => void; outDir: string; quick: boolean }): Promise<string> { return '## Scaling\n\n_not yet written_\n'; }
