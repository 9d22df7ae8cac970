/**
 * A snapshot of every file under a folder (path → bytes, symlinks as `-> target`), for the hostile
 * suite's "nothing outside the tool's own files was touched" assertions.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every entry under `root`: relative path → contents (`<dir>` for folders, `-> target` for
 * symlinks), except the run's own config folder `config/` (the worlds' config folder, where the
 * rate-limit cache lives).
 */
export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      if (folder === root && name === 'config') continue;
      const path = join(folder, name);
      const info = lstatSync(path);
      const key = relative(root, path);
      if (info.isSymbolicLink()) out[key] = `-> ${readlinkSync(path)}`;
      else if (info.isDirectory()) {
        out[key] = '<dir>';
        walk(path);
      } else if (info.isFile()) out[key] = readFileSync(path).toString('base64');
      else out[key] = '<special>';
    }
  };
  walk(root);
  return out;
}
