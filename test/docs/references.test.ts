// Source comments cite research by short id and section ("003b §3.2", "research 000 §2.9, §2.10",
// "001 §3.3–3.5"); docs/references.md names the published work behind each id and lists every
// cited section in a table per id. This reads every citation out of src/ and checks that the
// table of its id lists the section, and that a file which cites research points a reader to
// docs/references.md.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers.js';

const SRC = path.join(ROOT, 'src');
const REFERENCES = path.join(ROOT, 'docs', 'references.md');


/** A research id: 000 to 004, the dissertation's digests 003a to 003c. */
const ID = /(?<![\w.])(00[0-4][abc]?)(?![\w.])/g;
/** A section, with an item letter (§3.2a) or a range (§3.3–3.5). */
const SECTION = /§(\d+(?:\.\d+)*)([a-z])?(?:\s*[–-]\s*(\d+(?:\.\d+)*))?/g;
/**
 * Where the sections of one id end: a closing parenthesis, a semicolon, the end of a sentence, a
 * blank comment line, or another kind of reference (the work's own numbering, the MPI standard,
 * a bibliography key).
 */
const END_OF_CITATION = /[);]|\.\s+[A-Z]|\n\s*\*?\s*\n|\bthesis\b|\bpaper\b|MPI-\d|\[[A-Za-z+]+\d+[a-z]?\]/;

/** The sections `§a.b–a.d` stands for: a.b, a.c, a.d (a range varies its last number). */
function expand(first: string, letter: string | undefined, last: string | undefined): string[] {
  if (last === undefined) return [first + (letter ?? '')];
  const head = first.split('.');
  const from = Number(head.pop());
  const to = Number(last.split('.').pop());
  assert.ok(to >= from, `backwards range §${first}–${last}`);
  return Array.from({ length: to - from + 1 }, (_, k) => [...head, String(from + k)].join('.'));
}

/** The sections named in `text`, expanded. */
function sectionsIn(text: string): string[] {
  return [...text.matchAll(SECTION)].flatMap((m) => expand(m[1]!, m[2], m[3]));
}

interface Citation {
  readonly id: string;
  readonly section: string;
  readonly where: string;
}

/** Every `id §section` citation of `text` (sections after the id until the citation ends). */
function citationsIn(text: string, file: string): Citation[] {
  const out: Citation[] = [];
  const ids = [...text.matchAll(ID)];
  for (let k = 0; k < ids.length; k++) {
    const m = ids[k]!;
    const start = m.index + m[0].length;
    let tail = text.slice(start, Math.min(start + 200, ids[k + 1]?.index ?? text.length));
    const end = END_OF_CITATION.exec(tail);
    if (end !== null) tail = tail.slice(0, end.index);
    const line = text.slice(0, m.index).split('\n').length;
    for (const section of sectionsIn(tail)) out.push({ id: m[1]!, section, where: `${file}:${line}` });
  }
  return out;
}

/** The sections docs/references.md lists per id: the "Cited" column of the table under `## <id>: ...`. */
function listedSections(markdown: string): Map<string, Set<string>> {
  const listed = new Map<string, Set<string>>();
  let id: string | null = null;
  for (const line of markdown.split('\n')) {
    const heading = /^## (\S+?):/.exec(line) ?? (/^## /.test(line) ? [line, null] : null);
    if (heading !== null) {
      id = heading[1] !== null && /^00[0-4][abc]?$/.test(heading[1]!) ? heading[1]! : null;
      if (id !== null) listed.set(id, new Set());
      continue;
    }
    if (id === null || !line.startsWith('|')) continue;
    const cited = line.split('|')[1]!;
    for (const s of sectionsIn(cited)) listed.get(id)!.add(s);
  }
  return listed;
}

function sources(): string[] {
  return fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort();
}

describe('research citations in src/', () => {
  it('reads ids, lists, ranges and item letters, and stops where a citation ends', () => {
    const text = '/**\n * Trees (research 001 §3.1, §3.3–3.5,\n * §3.8; research 000 §2.5) and 003b §3.2a, thesis §5.4, ' +
      'with 004 §3.3. Then §9.9 (003c §1.6 pcast, §1.7 rpipe) and MPI-3.1 §5.2.2, seed 002 ("bd", Fig. 1b, §3.2).\n */';
    const got = citationsIn(text, 'x.ts').map((c) => `${c.id} §${c.section}`);
    assert.deepEqual(got, ['001 §3.1', '001 §3.3', '001 §3.4', '001 §3.5', '001 §3.8', '000 §2.5', '003b §3.2a', '004 §3.3',
      '003c §1.6', '003c §1.7', '002 §3.2']);
  });

  it('finds the tables of docs/references.md', () => {
    const listed = listedSections(fs.readFileSync(REFERENCES, 'utf8'));
    assert.deepEqual([...listed.keys()].sort(), ['000', '001', '002', '003a', '003b', '003c', '004']);
    assert.ok(listed.get('003b')!.has('3.2a'), [...listed.get('003b')!].join(' '));
    assert.ok(listed.get('001')!.has('3.4'), 'the range §3.3–3.5 of 001 stands for §3.4 too');
  });

  it('cites only sections docs/references.md lists for the id', () => {
    const listed = listedSections(fs.readFileSync(REFERENCES, 'utf8'));
    const all = sources().flatMap((f) => citationsIn(fs.readFileSync(path.join(SRC, f), 'utf8'), path.join('src', f)));
    assert.ok(all.length > 100, `only ${all.length} citations found in src/`);
    const missing = all.filter((c) => !listed.get(c.id)?.has(c.section)).map((c) => `${c.where}: ${c.id} §${c.section}`);
    assert.deepEqual(missing, [], 'cited in src/ but not listed in docs/references.md (fix the citation or add the row)');
  });

  it('points every file that cites research to docs/references.md', () => {
    const cites = new RegExp(ID.source);
    const citing = sources().filter((f) => cites.test(fs.readFileSync(path.join(SRC, f), 'utf8')));
    assert.ok(citing.length > 40, `only ${citing.length} files cite research`);
    const without = citing.filter((f) => !fs.readFileSync(path.join(SRC, f), 'utf8').includes('docs/references.md'));
    assert.deepEqual(without, [], 'these files cite research ids without saying where they resolve (docs/references.md)');
  });
});
