#!/usr/bin/env bash
# build.sh rebuilds dist/api-client.js: it installs the pinned Backbone,
# Underscore and jQuery from package-lock.json (npm ci) and concatenates
# their minified builds with src/api-client.js. The output depends only on
# the lock file and src/, so a rebuild is byte-identical. Run it through
# `go generate ./web` (or directly) after changing either.
set -euo pipefail

cd "$(dirname "$0")"

if [ "${FOLIO_WEB_SKIP_INSTALL:-}" != "1" ]; then
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
fi

# vendor NAME FILE prints one library: a notice line with its version,
# license and copyright, then its code without the source-map comment.
vendor() {
	local name="$1" file="node_modules/$1/$2" version license copyright
	version="$(node -p "require('./node_modules/$name/package.json').version")"
	license="$(node -p "require('./node_modules/$name/package.json').license")"
	copyright="$(grep -m1 -i 'copyright' "node_modules/$name/LICENSE"* | sed -e 's/^[[:space:]]*//' -e 's/\*\///g')"
	printf '/*! %s %s | %s License | %s */\n' "$name" "$version" "$license" "$copyright"
	grep -v '^//# sourceMappingURL=' "$file"
	printf '\n;\n'
}

out="dist/api-client.js"
mkdir -p dist
tmp="$(mktemp "dist/.api-client.js.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
{
	printf '/*! Folio API client bundle: jQuery, Underscore, Backbone and the Folio client. Built by web/build.sh; do not edit. */\n'
	vendor jquery dist/jquery.min.js
	vendor underscore underscore-umd-min.js
	vendor backbone backbone-min.js
	cat src/api-client.js
} >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote web/$out ($(wc -c <"$out") bytes)" >&2
