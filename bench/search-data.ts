import type { Pool } from 'pg';
import { newId } from '../platform/ids';

// Realistic-looking Nordic CRM data, generated deterministically (same seed, same rows).

const FIRST = [
  'Jens',
  'Mette',
  'Lars',
  'Anne',
  'Søren',
  'Camilla',
  'Henrik',
  'Louise',
  'Mikkel',
  'Sofie',
  'Rasmus',
  'Ida',
  'Anders',
  'Emma',
  'Kasper',
  'Freja',
  'Nikolaj',
  'Julie',
  'Thomas',
  'Maria',
  'Peter',
  'Karen',
  'Jonas',
  'Signe',
  'Morten',
  'Line',
  'Frederik',
  'Astrid',
  'Christian',
  'Nanna',
];
const LAST = [
  'Hansen',
  'Jensen',
  'Nielsen',
  'Pedersen',
  'Andersen',
  'Christensen',
  'Larsen',
  'Sørensen',
  'Rasmussen',
  'Jørgensen',
  'Petersen',
  'Madsen',
  'Kristensen',
  'Olsen',
  'Thomsen',
  'Christiansen',
  'Poulsen',
  'Johansen',
  'Møller',
  'Mortensen',
  'Lund',
  'Holm',
  'Berg',
  'Dahl',
  'Bak',
];
const WORD_A = [
  'Nordic',
  'Baltic',
  'Fjord',
  'Viking',
  'Polar',
  'Harbour',
  'Copper',
  'Granite',
  'Amber',
  'Evergreen',
  'Meridian',
  'Northwind',
  'Bluewave',
  'Silverline',
  'Aurora',
  'Skagen',
  'Oresund',
  'Lighthouse',
  'Juniper',
  'Falcon',
];
const WORD_B = [
  'Logistics',
  'Systems',
  'Foods',
  'Energy',
  'Analytics',
  'Design',
  'Robotics',
  'Consulting',
  'Shipping',
  'Textiles',
  'Software',
  'Pharma',
  'Media',
  'Capital',
  'Dynamics',
  'Construction',
  'Solutions',
  'Health',
  'Labs',
  'Trading',
];
const SUFFIX = ['ApS', 'A/S', 'Group', 'IVS', 'Holding', ''];
const CITIES = [
  'København',
  'Aarhus',
  'Odense',
  'Aalborg',
  'Esbjerg',
  'Randers',
  'Kolding',
  'Horsens',
  'Vejle',
  'Roskilde',
  'Herning',
  'Silkeborg',
];
const INDUSTRIES = [
  'Transport',
  'Software',
  'Food',
  'Energy',
  'Finance',
  'Retail',
  'Manufacturing',
  'Healthcare',
  'Media',
  'Construction',
];
const TITLES = [
  'CEO',
  'CFO',
  'Head of Sales',
  'Account Manager',
  'Purchasing Manager',
  'Marketing Lead',
  'Developer',
  'Office Manager',
  'Founder',
  'COO',
];

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/ø/g, 'oe')
    .replace(/æ/g, 'ae')
    .replace(/å/g, 'aa')
    .replace(/[^a-z0-9]+/g, '');

/** Inserts `companies` companies and `people` people (linked to random companies) for one workspace. */
export async function insertBenchRows(
  pool: Pool,
  workspaceId: string,
  companies: number,
  people: number,
  onProgress: (done: number) => void,
): Promise<void> {
  const random = rng(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const now = new Date();
  const companyIds: string[] = [];
  const domains: string[] = [];
  const CHUNK = 5000;
  for (let start = 0; start < companies; start += CHUNK) {
    const cols: unknown[][] = Array.from({ length: 10 }, () => []);
    for (let i = start; i < Math.min(companies, start + CHUNK); i++) {
      const name = [pick(WORD_A), pick(WORD_B), pick(SUFFIX)].filter(Boolean).join(' ');
      const domain = `${slug(name)}${i}.dk`;
      const id = newId(now);
      companyIds.push(id);
      domains.push(domain);
      [
        id,
        workspaceId,
        name,
        String(10_000_000 + Math.floor(random() * 89_999_999)),
        `info@${domain}`,
        `+45 ${String(Math.floor(random() * 1e8)).padStart(8, '0')}`,
        pick(CITIES),
        `https://www.${domain}`,
        pick(INDUSTRIES),
        now,
      ].forEach((v, c) => cols[c].push(v));
    }
    await pool.query(
      `insert into company (id, workspace_id, name, cvr, email, phone, city, website, industry, created_at, updated_at)
       select id, ws, name, cvr, email, phone, city, website, industry, ts, ts
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[])
         as t(id, ws, name, cvr, email, phone, city, website, industry, ts)`,
      cols,
    );
    onProgress(Math.min(companies, start + CHUNK));
  }
  for (let start = 0; start < people; start += CHUNK) {
    const cols: unknown[][] = Array.from({ length: 9 }, () => []);
    for (let i = start; i < Math.min(people, start + CHUNK); i++) {
      const first = pick(FIRST);
      const last = pick(LAST);
      const c = Math.floor(random() * companyIds.length);
      const emails = JSON.stringify([{ email: `${slug(first)}.${slug(last)}@${domains[c]}`, label: 'work' }]);
      const phones = JSON.stringify([
        { phone: `+45 ${String(Math.floor(random() * 1e8)).padStart(8, '0')}`, label: 'mobile' },
      ]);
      [newId(now), workspaceId, first, last, pick(TITLES), emails, phones, companyIds[c], now].forEach((v, col) =>
        cols[col].push(v),
      );
    }
    await pool.query(
      `insert into person (id, workspace_id, first_name, last_name, title, emails, phones, company_id, created_at, updated_at)
       select id, ws, fn, ln, title, emails::jsonb, phones::jsonb, cid, ts, ts
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
         as t(id, ws, fn, ln, title, emails, phones, cid, ts)`,
      cols,
    );
    onProgress(companies + Math.min(people, start + CHUNK));
  }
}

/** What users type: names, partial words, typos, e-mail fragments, cities, numbers. */
export const BENCH_QUERIES = [
  'nordic',
  'hansen',
  'jens hansen',
  'mette nielsen',
  'fjord logistics',
  'viking robotics',
  'aurora',
  'copper',
  'nord',
  'hans',
  'chris',
  'logist',
  'robo',
  'skag',
  'nordik',
  'hansn',
  'pedersn',
  'logistcs',
  'meridain',
  'sofie jensne',
  'jens.hansen',
  'info@nordic',
  'fjordlogistics',
  '@lighthouse',
  'aarhus',
  'head of sales',
  'account manager',
  'søren',
];
