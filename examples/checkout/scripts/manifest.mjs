// The trusted documents manifest, persisted-documents.json: `{"<sha256 hex of the text>":
// "<document text>"}` for every document of src/documents.js, the format the gateway loads
// with GRAPHPAY_TRUSTED_DOCUMENTS. Plain Node, no dependency.
//   --write  rewrites the manifest from src/documents.js
//   --check  changes nothing; fails unless the manifest lists exactly those documents, each
//            under the id its text hashes to
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DOCUMENTS } from '../src/documents.js';

const MANIFEST = fileURLToPath(new URL('../persisted-documents.json', import.meta.url));
const idOf = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

function expected() {
  const entries = Object.values(DOCUMENTS).map((text) => [idOf(text), text]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

function check() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch (error) {
    console.error(`persisted-documents.json cannot be read (${error.message}); run \`npm run manifest\``);
    process.exit(1);
  }
  const wanted = expected();
  const problems = [];
  for (const [id, text] of Object.entries(manifest)) {
    if (typeof text !== 'string') problems.push(`${id}: not a document text`);
    else if (idOf(text) !== id) problems.push(`${id}: its text hashes to ${idOf(text)}`);
    else if (!(id in wanted)) problems.push(`${id}: sent by nothing in src/documents.js`);
  }
  for (const [id, text] of Object.entries(wanted)) {
    if (!(id in manifest)) problems.push(`${id}: missing (${text.split('(')[0]})`);
  }
  if (problems.length) {
    console.error(`persisted-documents.json does not match src/documents.js (run \`npm run manifest\`):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`persisted-documents.json: ${Object.keys(manifest).length} documents, matching src/documents.js`);
}

if (process.argv.includes('--write')) {
  writeFileSync(MANIFEST, `${JSON.stringify(expected(), null, 2)}\n`);
  check();
} else if (process.argv.includes('--check')) {
  check();
} else {
  console.error('usage: node scripts/manifest.mjs --write | --check');
  process.exit(2);
}
