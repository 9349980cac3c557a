#!/usr/bin/env bash
# Copy the web chat widget's front-end libraries, and Swagger UI and ReDoc for the API's
# /docs and /redoc pages, from npm into api/static/vendor/.
#
# The files it writes are committed, so serving the widget (and its browser tests)
# needs no network; run this only to upgrade a library, then review and commit the
# diff. Each library is a self-contained browser build, so `npm pack` (the published
# tarball, no dependency install, no install scripts) is all that is needed.
#
#   scripts/vendor-widget.sh            # the pinned versions below
#   SOCKET_IO_CLIENT=4.8.4 scripts/vendor-widget.sh
set -euo pipefail

SOCKET_IO_CLIENT="${SOCKET_IO_CLIENT:-4.8.4}"   # MIT
MARKED="${MARKED:-18.2.1}"                      # MIT
DOMPURIFY="${DOMPURIFY:-3.5.0}"                 # MPL-2.0 OR Apache-2.0
SWAGGER_UI_DIST="${SWAGGER_UI_DIST:-5.35.0}"    # Apache-2.0
REDOC="${REDOC:-2.5.4}"                         # MIT (2.x: the last line with a standalone bundle)

repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$repo/api/static/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

command -v npm >/dev/null || { echo "npm is needed (apt-get install npm, or Node.js from nodejs.org)" >&2; exit 1; }

# unpack <package> <version>: the package's files in $work/<package>/
unpack() {
  local name="$1" version="$2" tarball
  tarball="$(cd "$work" && npm pack --silent "$name@$version" | tail -n 1)"
  mkdir -p "$work/$name"
  tar -xzf "$work/$tarball" -C "$work/$name" --strip-components=1
}

unpack socket.io-client "$SOCKET_IO_CLIENT"
unpack marked "$MARKED"
unpack dompurify "$DOMPURIFY"
unpack swagger-ui-dist "$SWAGGER_UI_DIST"
unpack redoc "$REDOC"

rm -rf "$out"
mkdir -p "$out/licenses"
cp "$work/socket.io-client/dist/socket.io.min.js" "$out/socket.io.min.js"
cp "$work/marked/lib/marked.umd.js" "$out/marked.umd.js"
cp "$work/dompurify/dist/purify.min.js" "$out/purify.min.js"
cp "$work/socket.io-client/LICENSE" "$out/licenses/socket.io-client.LICENSE"
cp "$work/marked/LICENSE.md" "$out/licenses/marked.LICENSE" 2>/dev/null || cp "$work/marked/LICENSE" "$out/licenses/marked.LICENSE"
cp "$work/dompurify/LICENSE" "$out/licenses/dompurify.LICENSE"
cp "$work/swagger-ui-dist/swagger-ui-bundle.js" "$out/swagger-ui-bundle.js"
cp "$work/swagger-ui-dist/swagger-ui.css" "$out/swagger-ui.css"
cp "$work/swagger-ui-dist/favicon-32x32.png" "$out/favicon-32x32.png"
cp "$work/swagger-ui-dist/LICENSE" "$out/licenses/swagger-ui-dist.LICENSE"
cp "$work/redoc/bundles/redoc.standalone.js" "$out/redoc.standalone.js"
cp "$work/redoc/LICENSE" "$out/licenses/redoc.LICENSE"

# the source maps are referenced from the bundles but not shipped: drop the comment so
# browsers do not ask for them
sed -i -e '/^\/\/# sourceMappingURL=/d' "$out"/*.js
sed -i -e 's|/\*# sourceMappingURL=[^*]*\*/||' "$out"/*.css
# ReDoc's "API docs by Redocly" badge loads its logo from cdn.redoc.ly: an empty image
# instead, so /redoc asks for nothing off the host
sed -i -e 's|https://cdn.redoc.ly/redoc/logo-mini.svg|data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27/%3E|' \
  "$out/redoc.standalone.js"

cat >"$out/README.md" <<EOF
# Vendored front-end libraries of the web chat widget and the API docs

Written by \`scripts/vendor-widget.sh\` from the npm registry; do not edit by hand.
Committed so the widget and the API's /docs (Swagger UI) and /redoc (ReDoc) pages work
with no network.

| file | package | version | licence |
|---|---|---|---|
| socket.io.min.js | socket.io-client | $SOCKET_IO_CLIENT | MIT (licenses/socket.io-client.LICENSE) |
| marked.umd.js | marked | $MARKED | MIT (licenses/marked.LICENSE) |
| purify.min.js | dompurify | $DOMPURIFY | MPL-2.0 OR Apache-2.0, used under Apache-2.0 (licenses/dompurify.LICENSE) |
| swagger-ui-bundle.js, swagger-ui.css, favicon-32x32.png | swagger-ui-dist | $SWAGGER_UI_DIST | Apache-2.0 (licenses/swagger-ui-dist.LICENSE) |
| redoc.standalone.js | redoc | $REDOC | MIT (licenses/redoc.LICENSE) |
EOF

echo "vendored into $out:"
ls -l "$out"
