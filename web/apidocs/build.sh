#!/usr/bin/env bash
# build.sh copies the API reference page's renderer, Swagger UI, from the
# version pinned in package-lock.json (npm ci) into dist/: the browser
# bundle and its style sheet without their source-map comments, and the
# bundle's licence notices. The output depends only on the lock file, so a
# rebuild is byte-identical. Run it through `go generate ./web` (or
# directly) after changing package.json.
set -euo pipefail

cd "$(dirname "$0")"

if [ "${FOLIO_WEB_SKIP_INSTALL:-}" != "1" ]; then
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
fi

pkg="node_modules/swagger-ui-dist"
version="$(node -p "require('./$pkg/package.json').version")"
license="$(node -p "require('./$pkg/package.json').license")"

mkdir -p dist
# copy SRC DEST COMMENT-OPEN COMMENT-CLOSE writes SRC to dist/DEST with a
# notice line first and no sourceMappingURL comment, through a temporary
# file renamed into place.
copy() {
	local src="$pkg/$1" out="dist/$2" tmp
	tmp="$(mktemp "dist/.$2.XXXXXX")"
	{
		printf '%s swagger-ui-dist %s | %s License | copied by web/apidocs/build.sh; do not edit %s\n' "$3" "$version" "$license" "$4"
		grep -v 'sourceMappingURL=' "$src"
	} >"$tmp"
	chmod 0644 "$tmp"
	mv "$tmp" "$out"
}
copy swagger-ui-bundle.js swagger-ui-bundle.js '/*!' '*/'
copy swagger-ui.css swagger-ui.css '/*!' '*/'
install -m 0644 "$pkg/swagger-ui-bundle.js.LICENSE.txt" dist/swagger-ui-bundle.js.LICENSE.txt
install -m 0644 "$pkg/LICENSE" dist/LICENSE
install -m 0644 "$pkg/NOTICE" dist/NOTICE
echo "wrote web/apidocs/dist ($(cat dist/swagger-ui-bundle.js dist/swagger-ui.css | wc -c) bytes)" >&2
