/*
 * apidocs.js starts Swagger UI on the API reference page ({api_root}docs).
 * It lives in its own file so that the page's Content-Security-Policy
 * allows no inline script. The page's #api-docs element names the API
 * description (data-spec-url) and, for a signed-in browser, the session's
 * nonce (data-nonce), which "Try it out" requests then carry so that the
 * session cookie signs them in.
 */
(function () {
	'use strict';
	var root = document.getElementById('api-docs');
	if (!root || typeof window.SwaggerUIBundle !== 'function') {
		return;
	}
	var nonce = root.getAttribute('data-nonce');
	var nonceHeader = root.getAttribute('data-nonce-header');
	window.folioApiDocs = window.SwaggerUIBundle({
		url: root.getAttribute('data-spec-url'),
		domNode: root,
		deepLinking: true,
		docExpansion: 'list',
		defaultModelsExpandDepth: 0,
		displayOperationId: true,
		// No badge from the online validator: the page loads nothing from
		// other hosts.
		validatorUrl: null,
		requestInterceptor: function (req) {
			if (nonce && nonceHeader && new URL(req.url, window.location.href).origin === window.location.origin) {
				req.headers[nonceHeader] = nonce;
			}
			return req;
		},
		onComplete: function () {
			document.body.setAttribute('data-ready', 'true');
		},
	});
})();
