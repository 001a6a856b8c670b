#!/usr/bin/env bash
# What a user installs, tried as a user would: every package under packages/ packed by `npm pack`
# (which builds it: `prepack`), the tarballs installed into a new project outside the repository,
# its TypeScript compiled there against the installed declarations, then run with plain `node` (no
# loader): the embedded examples on memory and on PGlite, and a user's property test. Then the
# built server as npm start runs it (test/pack/server.mjs).
# `npm run test:pack`; CI runs it after the suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/crm-pack.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"

packages=(core storage-memory storage-pg http pdf oauth mcp testing client pages)
mkdir -p "$work/tarballs" "$work/project/src"
for name in "${packages[@]}"; do
  npm pack --silent --workspace "@crm/$name" --pack-destination "$work/tarballs" --json >"$work/pack-$name.json"
done
WORK="$work" node -e '
  const fs = require("node:fs")
  for (const name of process.argv.slice(1)) {
    const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(fs.readFileSync(`${process.env.WORK}/pack-${name}.json`, "utf8"))
    console.log(`${filename}: ${(size / 1024).toFixed(0)} kB packed, ${(unpackedSize / 1024).toFixed(0)} kB unpacked, ${entryCount} files`)
  }' "${packages[@]}"

# The user's project: the tarballs, and the peers and tools at the versions this repository locks
# (so npm finds them in its cache), written by a script that reads the lock file.
WORK="$work" node --input-type=module -e '
  import { readdirSync, readFileSync, writeFileSync } from "node:fs"
  const work = process.env.WORK
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8")).packages
  const locked = (name) => lock[`node_modules/${name}`].version
  const dependencies = {}
  for (const file of readdirSync(`${work}/tarballs`)) {
    const name = file.replace(/^crm-(.*)-\d+\.\d+\.\d+\.tgz$/, "@crm/$1")
    dependencies[name] = `file:../tarballs/${file}`
  }
  for (const name of ["effect", "@effect/platform", "@effect/sql", "@effect/sql-pg", "@effect/experimental", "fast-check", "typescript", "@types/node"]) {
    dependencies[name] = locked(name)
  }
  writeFileSync(`${work}/project/package.json`, JSON.stringify({ name: "crm-user", private: true, type: "module", dependencies }, null, 2))
'
cp examples/embedded/src/*.ts examples/property-test/src/*.ts "$work/project/src/"
# A user's tsconfig as `tsc --init` writes it (skipLibCheck: PGlite's declarations need Emscripten's types).
cat >"$work/project/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "skipLibCheck": true,
    "types": ["node"],
    "outDir": "dist"
  },
  "include": ["src"]
}
EOF

cd "$work/project"
npm install --prefer-offline --no-audit --no-fund --loglevel=error
npx tsc -p tsconfig.json

# Each public entry imports in plain node; what is not exported stays closed.
for entry in @crm/core @crm/storage-memory @crm/storage-pg @crm/http @crm/pdf @crm/oauth @crm/mcp @crm/testing @crm/client @crm/pages; do
  node --input-type=module -e "const m = await import('$entry'); if (Object.keys(m).length === 0) throw new Error('$entry exports nothing')"
done
if node --input-type=module -e "await import('@crm/core/internal/operation.js')" 2>/dev/null; then
  echo "@crm/core/internal/* should be closed" >&2
  exit 1
fi

node dist/memory.js | tee memory.out
grep -q "contact.created ada@example.com" memory.out
node dist/pglite.js "$work/data" | tee pglite.out
node dist/pglite.js "$work/data" | tee pglite-again.out
grep -q "contact.created" pglite.out && grep -q "contact.created" pglite-again.out
node dist/property.js
# The pages' files (/admin's, /settings's) ship built in the package (dist/<page>/: each script
# bundled for the browser), read from where it is installed and served with their policy; Redoc,
# an optional peer not installed here, leaves /docs a page that says so.
node --input-type=module -e '
  import { pathToFileURL } from "node:url"
  import { Pages } from "@crm/pages"
  import * as Effect from "effect/Effect"
  const pages = Pages.make({ resolveFrom: pathToFileURL(`${process.cwd()}/app.js`) })
  const get = (url) => Effect.runPromise(pages.get(url.replace(/\?.*/, ""))({ method: "GET", url, headers: {} }))
  const checkPage = async (name, policy, apis) => {
    const page = await get(`/${name}`)
    if (page.status !== 200) throw new Error(`/${name} is not served from the installed package (${page.status})`)
    if (page.headers["content-security-policy"] !== policy) throw new Error(`/${name} is served without its policy`)
    const script = new RegExp(`src="(/${name}/${name}\\.js\\?v=[^"]+)"`).exec(page.body)?.[1]
    const style = new RegExp(`href="(/${name}/${name}\\.css\\?v=[^"]+)"`).exec(page.body)?.[1]
    const [bundle, sheet] = await Promise.all([script, style].map((url) => url === undefined ? undefined : get(url)))
    if (bundle?.status !== 200 || sheet?.status !== 200) throw new Error(`/${name}: its script or style sheet is not served`)
    // One module for the browser: the client bundled in, nothing imported from elsewhere.
    if (/^\s*import\b/m.test(bundle.body) || !apis.every((api) => bundle.body.includes(api))) {
      throw new Error(`/${name}/${name}.js is not the bundled page`)
    }
    if (!sheet.headers["content-type"].startsWith("text/css") || sheet.body.length === 0) throw new Error(`/${name}/${name}.css is not its style sheet`)
  }
  await checkPage("admin", Pages.ADMIN_POLICY, ["/admin/v1"])
  await checkPage("settings", Pages.SETTINGS_POLICY, ["/auth/v1", "/settings/v1"])
  if (!(await get("/docs")).body.includes("not installed")) throw new Error("/docs without Redoc should say so")
'
# A PDF renders from the installed @crm/pdf: in its worker thread (dist/pdfWorker.js, found beside
# the module that starts it), with pdfkit and the DejaVu fonts found from there. A file, not -e: a
# worker inherits the process's flags, and --input-type means nothing to it.
cat >pdf.mjs <<'PDF'
import { PdfWorkers } from "@crm/pdf"
if (PdfWorkers.pool === undefined) throw new Error("@crm/pdf finds no worker entry where it is installed")
const amounts = { subtotal: "100", vat_total: "21", total: "121", vat_summary: [{ vat_rate: 21, net: "100", vat: "21", gross: "121" }] }
const bytes = await PdfWorkers.pool.run({
  title: "Invoice", number: "2026-0001", draft: false, seller: ["Seller s.r.o."], buyer: ["Buyer a.s."],
  facts: [["Issue date", "2026-01-02"]], currency: "EUR", items: [], amounts, notes: [], footer: "Seller s.r.o.",
  updatedAt: "2026-01-02T00:00:00.000Z"
})
await PdfWorkers.pool.close()
if (Buffer.from(bytes.subarray(0, 5)).toString("latin1") !== "%PDF-") throw new Error("@crm/pdf rendered no PDF")
PDF
node pdf.mjs
echo "pack: ${#packages[@]} packages packed, installed outside the repository and run with plain node"

node "$root/test/pack/server.mjs"
