#!/usr/bin/env node
// Entry point: run main() and set the exit code. Nothing else lives here (README, "Architecture").
import { run } from '../dist/cli/main.js';

process.exitCode = await run(process.argv.slice(2));
