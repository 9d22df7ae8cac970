// The command line in a few files: dist/cli.js and the chunks it imports when a command needs them
// (dist/cli-*.js, one per dynamic import, so `--help` and `--version` still load only what they
// need). Node 20 resolves, reads, compiles and links each ES module on its own, and an export
// loaded 86 of ours before its first request: 46 ms of the start-up (docs/architecture.md,
// "Start-up"). The library (dist/index.js) stays as tsc writes it; packages stay in node_modules.
// The chunks sit beside dist/context.js because its `../package.json` is read from where it runs.
import { writeFileSync } from 'node:fs';

/** @type {import('rollup').RollupOptions} */
export default {
  input: 'dist/cli/main.js',
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  output: { dir: 'dist', format: 'es', entryFileNames: 'cli.js', chunkFileNames: 'cli-[name].js' },
  plugins: [
    {
      name: 'chunk-modules',
      // dist/cli-modules.json: the modules each file holds, for the test of what a command loads.
      writeBundle(_options, bundle) {
        const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
        const modules = Object.fromEntries(chunks.map((c) => [c.fileName, Object.keys(c.modules).map((m) => m.slice(m.lastIndexOf('/dist/') + 1))]));
        writeFileSync('dist/cli-modules.json', `${JSON.stringify(modules, null, 1)}\n`);
      },
    },
  ],
};
