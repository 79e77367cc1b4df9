#!/usr/bin/env bash
# build.sh rebuilds dist/api-client.js and dist/editor.js: it installs the
# pinned libraries from package-lock.json (npm ci), concatenates the
# minified builds of Backbone, Underscore and jQuery with src/api-client.js
# into dist/api-client.js, and those of DOMPurify and Squire (the admin's
# rich-text editor) into dist/editor.js. The output depends only on the lock
# file and src/, so a rebuild is byte-identical. Run it through
# `go generate ./web` (or directly) after changing either.
set -euo pipefail

cd "$(dirname "$0")"

if [ "${FOLIO_WEB_SKIP_INSTALL:-}" != "1" ]; then
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
fi

# vendor NAME FILE [COPYRIGHT] prints one library: a notice line with its
# version, license and copyright (from its LICENSE file unless given), then
# its code without the source-map comment.
vendor() {
	local name="$1" file="node_modules/$1/$2" version license copyright="${3:-}"
	version="$(node -p "require('./node_modules/$name/package.json').version")"
	license="$(node -p "require('./node_modules/$name/package.json').license")"
	if [ -z "$copyright" ]; then
		copyright="$(grep -m1 -i 'copyright' "node_modules/$name/LICENSE"* | sed -e 's/^[[:space:]]*//' -e 's/\*\///g')"
	fi
	printf '/*! %s %s | %s License | %s */\n' "$name" "$version" "$license" "$copyright"
	grep -v '^//# sourceMappingURL=' "$file"
	printf '\n;\n'
}

mkdir -p dist
tmp=""
trap 'rm -f "$tmp"' EXIT

# write OUT runs the rest of its arguments as a command and moves what it
# printed to dist/OUT in one step.
write() {
	local out="dist/$1"
	shift
	tmp="$(mktemp "dist/.$(basename "$out").XXXXXX")"
	"$@" >"$tmp"
	chmod 0644 "$tmp"
	mv "$tmp" "$out"
	tmp=""
	echo "wrote web/$out ($(wc -c <"$out") bytes)" >&2
}

api_client() {
	printf '/*! Folio API client bundle: jQuery, Underscore, Backbone and the Folio client. Built by web/build.sh; do not edit. */\n'
	vendor jquery dist/jquery.min.js
	vendor underscore underscore-umd-min.js
	vendor backbone backbone-min.js
	cat src/api-client.js
}

# editor is the admin's rich-text editor: DOMPurify (which Squire uses to
# clean pasted and loaded HTML) and Squire, as the globals DOMPurify and
# Squire.
editor() {
	printf '/*! Folio admin editor bundle: DOMPurify and Squire. Built by web/build.sh; do not edit. */\n'
	vendor dompurify dist/purify.min.js '(c) Cure53 and other contributors'
	vendor squire-rte dist/squire.js
}

write api-client.js api_client
write editor.js editor
trap - EXIT
