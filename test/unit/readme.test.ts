// The README is the five-minute tour (issue 25): at most 300 lines, the details in docs/<feature>.md,
// each bench's current figure once in bench/README.md. These checks keep it that way: the length, every
// relative link of every Markdown file in the repository (file and heading), the runtime dependencies
// named in the README, every docs page reachable from it, and one bench/README.md row per bench script.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const README_MAX_LINES = 300;
const SKIP_DIRS = new Set(['node_modules', '.data', '.tools', '.git']);

type Lookup = (repoPath: string) => string | 'dir' | undefined;

/** The text outside fenced code blocks and inline code spans (links there are examples, not links). */
function prose(text: string): string {
  let fenced = false;
  const kept = text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  return kept.join('\n').replace(/`[^`]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (not `-`, `_`), spaces to `-`. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings; repeated headings get `-1`, `-2`, … as on GitHub. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = headingSlug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The targets of the inline links and images of a Markdown text, outside code. */
export function markdownLinks(text: string): string[] {
  const re = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'][^"']*["'])?\s*\)/g;
  return [...prose(text).matchAll(re)].map((m) => m[1]!);
}

/** Problems of the relative links of one file (`file` is its repository path, `/`-separated). */
export function linkProblems(file: string, text: string, lookup: Lookup): string[] {
  const problems: string[] = [];
  for (const link of markdownLinks(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:, …
    const [rawPath = '', anchor] = link.split('#', 2);
    const target = rawPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), rawPath));
    const content = target.startsWith('../') ? undefined : lookup(decodeURIComponent(target));
    if (content === undefined) {
      problems.push(`${file}: link ${link} → ${target} does not exist`);
    } else if (anchor && content !== 'dir' && target.endsWith('.md') && !headingAnchors(content).has(anchor)) {
      problems.push(`${file}: link ${link} → no heading #${anchor} in ${target}`);
    }
  }
  return problems;
}

function repoLookup(repoPath: string): string | 'dir' | undefined {
  const abs = path.join(ROOT, repoPath);
  if (!fs.existsSync(abs)) return undefined;
  return fs.statSync(abs).isDirectory() ? 'dir' : fs.readFileSync(abs, 'utf8');
}

function markdownFiles(dir = ''): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : markdownFiles(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
const read = (repoPath: string): string => fs.readFileSync(path.join(ROOT, repoPath), 'utf8');

describe('README and docs', () => {
  const readme = read('README.md');

  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    expect(lineCount(readme)).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every relative link of every Markdown file points to an existing file and heading', () => {
    const files = markdownFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'bench/README.md']));
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(10);
    expect(files.flatMap((f) => linkProblems(f, read(f), repoLookup))).toEqual([]);
  });

  it('names every runtime dependency of package.json in the README', () => {
    const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, string> | undefined>;
    const runtime = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies });
    expect(runtime.length).toBeGreaterThan(20);
    expect(runtime.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });

  it('links every docs page from the README', () => {
    const linked = new Set(markdownLinks(readme).map((l) => path.posix.normalize(l.split('#')[0]!)));
    const pages = markdownFiles('docs');
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it('gives every bench script exactly one row in bench/README.md', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const benches = Object.keys(pkg.scripts).filter((s) => s.startsWith('bench:'));
    expect(benches.length).toBeGreaterThan(10);
    const rows = read('bench/README.md')
      .split('\n')
      .filter((l) => l.startsWith('| `npm run '));
    const rowsOf = (b: string) => rows.filter((l) => l.startsWith(`| \`npm run ${b}\``)).length;
    expect(benches.filter((b) => rowsOf(b) !== 1)).toEqual([]);
  });
});

describe('the Markdown link check', () => {
  const files: Record<string, string> = {
    'README.md': '# Title\n\n## Module map\n\n## Repeated\n\n## Repeated\n',
    'docs/a.md': '# A page\n\n## E-mail, SMS and AI providers\n\n## `npm start` in detail\n',
  };
  const lookup: Lookup = (p) => (p === 'docs' ? 'dir' : files[p]);

  it('reports a link to a missing file, a missing heading, and one leaving the repository', () => {
    const text = 'See [b](b.md), [a](a.md#nope), [up](../../etc/passwd) and [self](#missing).';
    expect(linkProblems('docs/a.md', text, lookup)).toEqual([
      'docs/a.md: link b.md → docs/b.md does not exist',
      'docs/a.md: link a.md#nope → no heading #nope in docs/a.md',
      'docs/a.md: link ../../etc/passwd → ../etc/passwd does not exist',
      'docs/a.md: link #missing → no heading #missing in docs/a.md',
    ]);
  });

  it('accepts existing files, headings, folders and external links; ignores code', () => {
    const text = [
      '[readme](../README.md#module-map) [again](../README.md#repeated-1) [docs](../docs)',
      '[providers](a.md#e-mail-sms-and-ai-providers) [start](#npm-start-in-detail) [web](https://example.com/x.md)',
      '`[not a link](nowhere.md)`',
      '```md',
      '[not a link either](nowhere.md)',
      '```',
    ].join('\n');
    expect(linkProblems('docs/a.md', text, lookup)).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(headingSlug('E-mail, SMS and AI providers')).toBe('e-mail-sms-and-ai-providers');
    expect(headingSlug('`npm start` in detail')).toBe('npm-start-in-detail');
    expect(headingSlug('Temporal: workflow registry, encrypted payloads')).toBe(
      'temporal-workflow-registry-encrypted-payloads',
    );
    expect([...headingAnchors(files['README.md']!)]).toEqual(['title', 'module-map', 'repeated', 'repeated-1']);
  });
});
