#!/usr/bin/env node
// Entry point: run main() and exit with its code. Nothing else lives here (README, "Architecture").
import { exitWhenFlushed, run } from '../dist/cli.js';

await exitWhenFlushed(await run(process.argv.slice(2)));
