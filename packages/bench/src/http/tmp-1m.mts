import { writeFileSync } from 'node:fs';
import { runHttpSuite } from './index.js';
const md = await runHttpSuite({ durationS: 6, products: Number(process.argv[2] ?? 1_000_000), log: (l) => console.log(l) });
writeFileSync('/tmp/http-1m.md', md);
