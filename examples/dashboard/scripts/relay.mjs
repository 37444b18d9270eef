// Compiles the app's GraphQL operations with relay-compiler, from scratch, so that
// persisted-documents.json lists exactly the operations the app sends (relay-compiler itself
// only ever adds to it). With --check, changes nothing and fails unless the manifest matches
// the generated artifacts: every artifact's document id is in it, with the text that hashes to
// that id, and nothing else is.

import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';

const MANIFEST = 'persisted-documents.json';
const GENERATED = 'src/__generated__';

function relayCompiler(...args) {
  execFileSync('relay-compiler', args, { stdio: 'inherit', shell: process.platform === 'win32' });
}

function artifactIds() {
  return readdirSync(GENERATED)
    .filter((name) => name.endsWith('.graphql.js'))
    .map((name) => readFileSync(`${GENERATED}/${name}`, 'utf8').match(/"id": "([0-9a-f]{64})"/)?.[1])
    .filter(Boolean)
    .sort();
}

function check() {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  const problems = [];
  for (const [id, text] of Object.entries(manifest)) {
    if (createHash('sha256').update(text).digest('hex') !== id) problems.push(`${id}: text does not hash to its id`);
  }
  const expected = artifactIds();
  const listed = Object.keys(manifest).sort();
  for (const id of expected) if (!listed.includes(id)) problems.push(`${id}: missing from ${MANIFEST}`);
  for (const id of listed) if (!expected.includes(id)) problems.push(`${id}: in ${MANIFEST} but sent by nothing`);
  if (problems.length) {
    console.error(`${MANIFEST} is out of date (run \`npm run relay\`):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`${MANIFEST}: ${listed.length} documents, matching the artifacts`);
}

if (process.argv.includes('--check')) {
  check();
} else {
  rmSync(GENERATED, { recursive: true, force: true });
  writeFileSync(MANIFEST, '{}\n');
  relayCompiler();
  check();
}
