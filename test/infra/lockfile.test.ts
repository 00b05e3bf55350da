// `npm ci` refuses a lock that lacks an optional dependency of a locked package (e.g. another
// platform's @swc/core build), and the fallback `npm install` would rewrite the lock: a fresh
// clone's `git status` must stay clean, so every optional dependency is locked.
import fs from 'node:fs';
import path from 'node:path';

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** npm's resolution: the nearest node_modules folder up from the dependent package. */
function resolves(from: string, name: string): boolean {
  let base = from;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base) return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

describe('package-lock.json', () => {
  it('locks every optional dependency of every locked package (npm ci accepts it on any platform)', () => {
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(key, name)) missing.push(`${key || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
