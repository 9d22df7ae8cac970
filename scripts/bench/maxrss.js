// Preload (`node --import`) used by run.js when GNU time is missing: writes the process's peak RSS
// (process.resourceUsage().maxRSS, KiB) to the file named by BENCH_MAXRSS_FILE at exit.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_MAXRSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
