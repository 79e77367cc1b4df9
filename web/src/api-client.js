/*!
 * Folio browser client: Backbone models and collections built from the
 * API's namespace index. Reads window.folioApiSettings (or
 * window.wpApiSettings) = {root, nonce, versionString}. See
 * docs/browser-client.md.
 */
(function (window, $, _, Backbone) {
	'use strict';

	var folio = window.folio = window.folio || {};
	if (folio.api && folio.api.BaseModel) {
		return;
	}

	var given = window.folioApiSettings || window.wpApiSettings || {};
	var origin = window.location.origin || (window.location.protocol + '//' + window.location.host);

	// settings is the live settings object: root, nonce, versionString and
	// the optional headerPrefix and mapping.
	var settings = _.extend({
		root: origin + '/api/',
		nonce: null,
		versionString: 'svc/v2/'
	}, given);
	if (settings.root.charAt(settings.root.length - 1) !== '/') {
		settings.root += '/';
	}
	if (settings.versionString.charAt(settings.versionString.length - 1) !== '/') {
		settings.versionString += '/';
	}

	var api = _.extend({}, Backbone.Events);
	folio.api = api;
	api.settings = settings;
	api.versionString = settings.versionString;
	api.models = {};
	api.collections = {};
	api.utils = {};

	// headerPrefix is the prefix of the interface's own headers: X-WP- for
	// the WordPress-compatible names (versionString "wp/v2/"), X-API-
	// otherwise, unless the settings name one.
	function headerPrefix() {
		if (settings.headerPrefix) {
			return settings.headerPrefix;
		}
		return /^wp\//.test(settings.versionString) ? 'X-WP-' : 'X-API-';
	}
	api.utils.headerPrefix = headerPrefix;

	// responseHeader reads one of the interface's headers from a response,
	// trying the configured prefix first and the other known one after.
	function responseHeader(xhr, name) {
		if (!xhr || !xhr.getResponseHeader) {
			return null;
		}
		var v = xhr.getResponseHeader(headerPrefix() + name);
		if (v === null || v === undefined || v === '') {
			v = xhr.getResponseHeader((headerPrefix() === 'X-WP-' ? 'X-API-' : 'X-WP-') + name);
		}
		return (v === undefined || v === '') ? null : v;
	}
	api.utils.responseHeader = responseHeader;

	/**
	 * nonce returns the current nonce ('' when the page has none).
	 */
	api.nonce = function () {
		return settings.nonce || '';
	};

	/**
	 * setNonce replaces the nonce sent with every request and triggers
	 * "nonce" on folio.api. The settings objects on window follow.
	 */
	api.setNonce = function (nonce) {
		if (!nonce || nonce === settings.nonce) {
			return;
		}
		settings.nonce = nonce;
		_.each(['folioApiSettings', 'wpApiSettings'], function (k) {
			if (window[k] && typeof window[k] === 'object') {
				window[k].nonce = nonce;
			}
		});
		api.trigger('nonce', nonce);
	};

	// withNonce wraps options.beforeSend so that the request carries the
	// nonce header, when the page has a nonce.
	function withNonce(options) {
		var before = options.beforeSend;
		options.beforeSend = function (xhr) {
			var nonce = api.nonce();
			if (nonce) {
				xhr.setRequestHeader(headerPrefix() + 'Nonce', nonce);
			}
			if (before) {
				return before.apply(this, arguments);
			}
		};
		return options;
	}

	// watch picks up a refreshed nonce from any response, success or error,
	// and reports failed requests as "error" events on folio.api.
	function watch(xhr) {
		if (xhr && xhr.always) {
			xhr.always(function () {
				api.setNonce(responseHeader(xhr, 'Nonce'));
			});
			xhr.fail(function () {
				api.trigger('error', api.utils.errorOf(xhr), xhr);
			});
		}
		return xhr;
	}

	/**
	 * errorOf returns {code, message, status, data} for a failed request.
	 */
	api.utils.errorOf = function (xhr) {
		var body = xhr && xhr.responseJSON;
		if (!body && xhr && xhr.responseText) {
			try {
				body = JSON.parse(xhr.responseText);
			} catch (e) {
				body = null;
			}
		}
		if (_.isArray(body)) {
			body = body[0];
		}
		body = body || {};
		return {
			code: body.code || 'http_error',
			message: body.message || (xhr && xhr.statusText) || 'Request failed',
			status: xhr ? xhr.status : 0,
			data: body.data || null
		};
	};

	/**
	 * request sends one request through jQuery.ajax with the nonce header
	 * and picks up a refreshed nonce. A path that is not an absolute URL is
	 * taken relative to the API root and version ("posts/5" →
	 * {root}{versionString}posts/5; "/svc/v2/posts" → {root}svc/v2/posts).
	 * JSON bodies: pass data as an object and method POST/PUT/PATCH; it is
	 * sent as application/json. It returns the jqXHR promise.
	 */
	api.request = function (options) {
		options = _.extend({ method: 'GET', dataType: 'json' }, options);
		options.url = api.utils.url(options.url || options.path || '');
		delete options.path;
		var m = options.method.toUpperCase();
		if (m !== 'GET' && m !== 'HEAD' && _.isObject(options.data) && !(window.FormData && options.data instanceof window.FormData) &&
			!(window.Blob && options.data instanceof window.Blob) && options.contentType === undefined) {
			options.data = JSON.stringify(options.data);
			options.contentType = 'application/json';
		}
		return watch($.ajax(withNonce(options)));
	};

	/**
	 * utils.url resolves a path against the API root (see request).
	 */
	api.utils.url = function (path) {
		if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
			return path;
		}
		if (path.charAt(0) === '/') {
			return settings.root + path.replace(/^\/+/, '');
		}
		return settings.root + settings.versionString + path;
	};

	/**
	 * utils.parseRoute splits a route pattern of the index (for example
	 * "/svc/v2/posts/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)") below the
	 * namespace into segments: {literal: "posts"} or {param: "id",
	 * pattern: "[\d]+"}. It returns null for a route outside the namespace.
	 */
	api.utils.parseRoute = function (route, namespace) {
		var ns = '/' + namespace.replace(/\/+$/, '');
		if (route !== ns && route.indexOf(ns + '/') !== 0) {
			return null;
		}
		var rest = route.slice(ns.length + 1), segs = [], cur = '', depth = 0, i, c;
		for (i = 0; i < rest.length; i++) {
			c = rest.charAt(i);
			if (c === '\\') {
				cur += c + rest.charAt(i + 1);
				i++;
				continue;
			}
			if (c === '(') {
				depth++;
			} else if (c === ')') {
				depth--;
			}
			if (c === '/' && depth === 0) {
				segs.push(cur);
				cur = '';
				continue;
			}
			cur += c;
		}
		if (cur !== '' || segs.length) {
			segs.push(cur);
		}
		return _.map(_.filter(segs, function (s) { return s !== ''; }), function (s) {
			var m = /^\(\?P<(\w+)>([\s\S]*)\)$/.exec(s);
			return m ? { param: m[1], pattern: m[2] } : { literal: s };
		});
	};

	/**
	 * utils.singular turns a route word into its singular ("categories" →
	 * "category", "statuses" → "status", "media" → "media", "posts" →
	 * "post").
	 */
	api.utils.singular = function (word) {
		if (/ies$/.test(word)) {
			return word.slice(0, -3) + 'y';
		}
		if (/(ss|us|x|ch|sh)es$/.test(word)) {
			return word.slice(0, -2);
		}
		if (/[^s]s$/.test(word)) {
			return word.slice(0, -1);
		}
		return word;
	};

	/**
	 * utils.className turns route words into a class name
	 * ("application-passwords" → "ApplicationPasswords").
	 */
	api.utils.className = function (words) {
		return _.map(words, function (w) {
			return _.map(String(w).split(/[-_\s]+/), function (p) {
				return p.charAt(0).toUpperCase() + p.slice(1);
			}).join('');
		}).join('');
	};

	// idAttributes maps a route's last parameter to the attribute that
	// identifies the resource.
	var idAttributes = { type: 'slug', status: 'slug', taxonomy: 'slug' };

	// fill builds a path from segments, taking parameters from params.
	// It returns null when a parameter is missing.
	function fill(segs, params) {
		var out = [], ok = true;
		_.each(segs, function (s) {
			if (s.literal !== undefined) {
				out.push(s.literal);
				return;
			}
			var v = params[s.param];
			if (v === undefined || v === null || v === '') {
				ok = false;
				return;
			}
			out.push(encodeURIComponent(String(v)));
		});
		return ok ? out.join('/') : null;
	}

	// paramsFrom collects route parameters from options: params, and parent
	// for the first parameter of a nested route (never the item's own id).
	function paramsFrom(segs, options, fallback) {
		var params = _.extend({}, fallback || {}, options && options.params);
		if (options && options.parent !== undefined && options.parent !== null && options.parent !== '') {
			var first = _.find(_.initial(segs), function (s) { return s.param !== undefined; });
			if (first && params[first.param] === undefined) {
				params[first.param] = options.parent;
			}
		}
		return params;
	}

	// writable turns attributes into a request body: only the arguments
	// the route's write endpoint declares (when known), {raw: …} objects as
	// their raw value, rendered-only objects and nulls of dates left out.
	function writable(attrs, args) {
		var out = {};
		_.each(attrs, function (v, k) {
			if (k.charAt(0) === '_' || (args && !_.has(args, k))) {
				return;
			}
			if (v && _.isObject(v) && !_.isArray(v)) {
				if (_.has(v, 'raw')) {
					v = v.raw;
				} else if (_.has(v, 'rendered')) {
					return;
				}
			}
			if (v === null && /^(date|date_gmt|modified|modified_gmt)$/.test(k)) {
				return;
			}
			if (k === 'slug' && v === '') {
				return;
			}
			out[k] = v;
		});
		return out;
	}
	api.utils.writable = writable;

	// sync is the Backbone.sync of every model and collection: the nonce
	// header, a refreshed nonce from the response, writable bodies.
	function sync(method, entity, options) {
		options = withNonce(options || {});
		if ((method === 'create' || method === 'update' || method === 'patch') && entity instanceof Backbone.Model) {
			var attrs = options.attrs || entity.toJSON(options);
			options.attrs = writable(attrs, method === 'patch' ? null : entity.args);
		}
		if (method === 'delete' && options.force) {
			options.url = _.result(entity, 'url') + (/\?/.test(_.result(entity, 'url')) ? '&' : '?') + 'force=true';
		}
		return watch(Backbone.sync(method, entity, options));
	}

	function deny(message) {
		return $.Deferred().reject({ code: 'folio_client_method_not_allowed', message: message, status: 0 }).promise();
	}

	/**
	 * BaseModel is the parent of every built model. save and destroy answer
	 * a rejected promise when the route does not allow the method.
	 */
	api.BaseModel = Backbone.Model.extend({
		methods: [],
		args: null,
		segments: [],
		collectionSegments: null,
		collectionMethods: null,
		constructor: function (attributes, options) {
			this.params = paramsFrom(this.segments, options, options && options.collection && options.collection.params);
			Backbone.Model.apply(this, arguments);
		},
		sync: sync,
		url: function () {
			var params = _.extend({}, this.params, this.collection && this.collection.params);
			var last = _.last(this.segments);
			if (last && last.param !== undefined && !this.isNew()) {
				params[last.param] = this.id;
				var path = fill(this.segments, params);
				if (path !== null) {
					return settings.root + settings.versionString + path;
				}
			}
			if (last && last.literal !== undefined) {
				return settings.root + settings.versionString + fill(this.segments, params);
			}
			if (this.collectionSegments) {
				var cpath = fill(this.collectionSegments, params);
				if (cpath !== null) {
					return settings.root + settings.versionString + cpath;
				}
			}
			throw new Error('folio.api: cannot build the URL of ' + this.name + ' without its route parameters');
		},
		save: function (attrs, options) {
			// A new model is created on its collection's route, so that
			// route's methods decide (application passwords, for example,
			// are created on the collection but never updated).
			var methods = this.isNew() && this.collectionMethods ? this.collectionMethods : this.methods;
			if (!_.intersection(methods, ['POST', 'PUT', 'PATCH']).length) {
				return deny(this.name + ' cannot be saved');
			}
			return Backbone.Model.prototype.save.call(this, attrs, options);
		},
		destroy: function (options) {
			if (!_.contains(this.methods, 'DELETE')) {
				return deny(this.name + ' cannot be deleted');
			}
			return Backbone.Model.prototype.destroy.call(this, options);
		},
		/**
		 * embedded returns the _embedded entries of a relation ("author",
		 * "wp:featuredmedia", or the full relation URL), or [].
		 */
		embedded: function (rel) {
			var e = this.get('_embedded') || {};
			if (e[rel]) {
				return e[rel];
			}
			var hit = _.find(_.keys(e), function (k) {
				return k.slice(-rel.length - 1) === '/' + rel || k.slice(-rel.length - 1) === ':' + rel;
			});
			return hit ? e[hit] : [];
		}
	});

	/**
	 * BaseCollection is the parent of every built collection: it keeps the
	 * paging state from X-API-Total / X-API-TotalPages and offers
	 * hasMore(), more() and fetchPage(n).
	 */
	api.BaseCollection = Backbone.Collection.extend({
		methods: [],
		segments: [],
		constructor: function (models, options) {
			this.params = paramsFrom(this.segments, options);
			this.state = { data: {}, currentPage: null, totalPages: null, totalObjects: null };
			Backbone.Collection.apply(this, arguments);
		},
		url: function () {
			var path = fill(this.segments, this.params);
			if (path === null) {
				throw new Error('folio.api: ' + this.name + ' needs its parent (options.parent or options.params)');
			}
			return settings.root + settings.versionString + path;
		},
		parse: function (resp) {
			if (resp && !_.isArray(resp) && _.isObject(resp)) {
				return _.values(resp);
			}
			return resp;
		},
		sync: function (method, collection, options) {
			options = options || {};
			var self = this;
			if (method === 'read') {
				var data = options.data = _.isObject(options.data) ? options.data : {};
				self.state.data = _.omit(data, 'page');
				var page = parseInt(data.page, 10) || 1;
				var success = options.success;
				options.success = function (resp, status, xhr) {
					var total = parseInt(responseHeader(xhr, 'Total'), 10);
					var pages = parseInt(responseHeader(xhr, 'TotalPages'), 10);
					var count = _.isArray(resp) ? resp.length : _.size(resp);
					self.state.currentPage = page;
					self.state.totalObjects = isNaN(total) ? count : total;
					self.state.totalPages = isNaN(pages) ? 1 : pages;
					if (success) {
						return success.apply(this, arguments);
					}
				};
			}
			return sync(method, collection, options);
		},
		/**
		 * hasMore is true when pages after the last fetched one exist, and
		 * null before the first fetch.
		 */
		hasMore: function () {
			if (this.state.currentPage === null || this.state.totalPages === null) {
				return null;
			}
			return this.state.currentPage < this.state.totalPages;
		},
		/**
		 * more fetches the next page with the same query and adds its items
		 * to the collection (remove: false). Without a next page it answers
		 * a promise resolved with no items.
		 */
		more: function (options) {
			options = _.extend({ remove: false }, options);
			if (!this.hasMore()) {
				return $.Deferred().resolve([]).promise();
			}
			options.data = _.extend({}, this.state.data, options.data, { page: this.state.currentPage + 1 });
			return this.fetch(options);
		},
		/**
		 * fetchPage replaces the items with page n of the same query.
		 */
		fetchPage: function (n, options) {
			options = _.extend({}, options);
			options.data = _.extend({}, this.state.data, options.data, { page: n });
			return this.fetch(options);
		}
	});

	// Helpers mixed into models whose write arguments name the field.
	function getter(modelName, idOf) {
		return function () {
			var id = idOf.call(this), Model = api.models[modelName];
			if (!id || !Model) {
				return $.Deferred().resolve(null).promise();
			}
			var m = new Model({ id: id });
			return m.fetch().then(function () { return m; });
		};
	}
	function termsGetter(collectionName, field) {
		return function () {
			var ids = this.get(field), Coll = api.collections[collectionName];
			if (!Coll || !ids || !ids.length) {
				return $.Deferred().resolve(Coll ? new Coll() : null).promise();
			}
			var c = new Coll();
			return c.fetch({ data: { include: ids.join(','), per_page: 100 } }).then(function () { return c; });
		};
	}
	var mixins = [
		{ field: 'author', methods: { getAuthorUser: getter('User', function () { return this.get('author'); }) } },
		{ field: 'featured_media', methods: { getFeaturedMedia: getter('Media', function () { return this.get('featured_media'); }) } },
		{ field: 'categories', methods: { getCategories: termsGetter('Categories', 'categories') } },
		{ field: 'tags', methods: { getTags: termsGetter('Tags', 'tags') } }
	];

	/**
	 * build turns a namespace index into {models, collections} classes.
	 */
	api.utils.build = function (index, namespace, mapping) {
		mapping = mapping || settings.mapping || {};
		var out = { models: {}, collections: {}, routes: {} };
		var items = [], lists = [];
		_.each(index.routes || {}, function (route, key) {
			var segs = api.utils.parseRoute(key, namespace);
			if (!segs || !segs.length) {
				return;
			}
			var words = _.pluck(_.filter(segs, function (s) { return s.literal !== undefined; }), 'literal');
			var last = _.last(segs);
			var entry = { key: key, route: route, segs: segs, words: words };
			if (last.param !== undefined || last.literal === 'me') {
				items.push(entry);
			} else {
				lists.push(entry);
			}
		});
		function names(words, singularLast) {
			var parts = _.map(words, function (w, i) {
				return (i < words.length - 1 || singularLast) ? api.utils.singular(w) : w;
			});
			return api.utils.className(parts);
		}
		function writeArgs(route) {
			var ep = _.find(route.endpoints || [], function (e) {
				return _.intersection(e.methods, ['POST', 'PUT', 'PATCH']).length > 0;
			});
			return ep ? (ep.args || {}) : null;
		}
		function readArgs(route) {
			var ep = _.find(route.endpoints || [], function (e) { return _.contains(e.methods, 'GET'); });
			return ep ? (ep.args || {}) : {};
		}
		var listByWords = {};
		_.each(lists, function (l) { listByWords[l.words.join('/')] = l; });

		_.each(items, function (it) {
			var isMe = _.last(it.segs).literal === 'me';
			var name = isMe ? 'Me' : names(it.words, true);
			name = (mapping.models && mapping.models[name]) || name;
			var list = isMe ? null : listByWords[it.words.join('/')];
			var lastParam = _.last(it.segs).param;
			var proto = {
				name: name,
				route: it,
				segments: it.segs,
				collectionSegments: list ? list.segs : null,
				collectionMethods: list ? (list.route.methods || []) : null,
				methods: it.route.methods || [],
				args: writeArgs(it.route) || (list && writeArgs(list.route)),
				options: readArgs(it.route),
				idAttribute: lastParam === undefined ? 'id' : (idAttributes[lastParam] || lastParam)
			};
			var Model = api.BaseModel.extend(proto);
			_.each(mixins, function (mx) {
				if (proto.args && _.has(proto.args, mx.field)) {
					Model = Model.extend(mx.methods);
				}
			});
			out.models[name] = Model;
		});
		var modelByWords = {};
		_.each(items, function (it) {
			if (_.last(it.segs).literal !== 'me') {
				var n = names(it.words, true);
				modelByWords[it.words.join('/')] = out.models[(mapping.models && mapping.models[n]) || n];
			}
		});
		_.each(lists, function (l) {
			var name = names(l.words, false);
			name = (mapping.collections && mapping.collections[name]) || name;
			var Model = modelByWords[l.words.join('/')];
			if (!Model) {
				var mname = names(l.words, true);
				Model = out.models[mname] = api.BaseModel.extend({
					name: mname, route: l, segments: l.segs, collectionSegments: l.segs,
					methods: l.route.methods || [], args: writeArgs(l.route), options: readArgs(l.route)
				});
			}
			out.collections[name] = api.BaseCollection.extend({
				name: name,
				route: l,
				segments: l.segs,
				model: Model,
				methods: l.route.methods || [],
				args: writeArgs(l.route),
				options: readArgs(l.route)
			});
		});
		_.each(out.models, function (M, n) { out.routes[n] = M.prototype.route.key; });
		return out;
	};

	// Media uploads: the file goes as multipart form data (part "file")
	// with any other fields beside it.
	api.utils.uploadForm = function (file, fields) {
		var fd = new window.FormData();
		fd.append('file', file, file.name);
		_.each(fields || {}, function (v, k) {
			if (v !== undefined && v !== null) {
				fd.append(k, v);
			}
		});
		return fd;
	};

	/**
	 * upload sends a File (or Blob with a name) to the media collection with
	 * optional fields (title, alt_text, caption, post) and resolves with the
	 * new Media model. options.progress, when given, is called with
	 * (loaded, total) bytes as the file goes up.
	 */
	api.upload = function (file, fields, options) {
		var progress = options && options.progress;
		return api.request({
			method: 'POST',
			path: 'media',
			data: api.utils.uploadForm(file, fields),
			processData: false,
			contentType: false,
			xhr: function () {
				var xhr = $.ajaxSettings.xhr();
				if (progress && xhr.upload) {
					xhr.upload.addEventListener('progress', function (e) {
						progress(e.loaded, e.lengthComputable ? e.total : file.size);
					});
				}
				return xhr;
			}
		}).then(function (data) {
			var Media = api.models.Media || api.BaseModel;
			return new Media(data);
		});
	};

	var loading = {};

	/**
	 * init fetches the namespace index (unless args.schema or
	 * settings.schema holds it), builds the models and collections and
	 * resolves with {models, collections, routes, index}. The default
	 * endpoint (settings root and versionString) also fills
	 * folio.api.models and folio.api.collections.
	 */
	api.init = function (args) {
		args = args || {};
		var root = args.apiRoot || settings.root;
		var version = args.versionString || settings.versionString;
		var key = root + version;
		if (loading[key]) {
			return loading[key];
		}
		var isDefault = root === settings.root && version === settings.versionString;
		var schema = args.schema || (isDefault ? settings.schema : null);
		var got = schema ? $.Deferred().resolve(schema).promise() :
			api.request({ url: root + version.replace(/\/+$/, '') });
		loading[key] = got.then(function (index) {
			var ns = index.namespace || version.replace(/\/+$/, '');
			var built = api.utils.build(index, ns, args.mapping);
			built.index = index;
			if (isDefault) {
				_.extend(api.models, built.models);
				_.extend(api.collections, built.collections);
				api.routes = built.routes;
				api.trigger('ready', built);
			}
			return built;
		}, function (xhr) {
			delete loading[key];
			return $.Deferred().reject(api.utils.errorOf(xhr)).promise();
		});
		return loading[key];
	};

	// In WordPress-compatibility mode the client is also window.wp.api.
	if (window.wpApiSettings) {
		window.wp = window.wp || {};
		window.wp.api = window.wp.api || api;
	}

	if (settings.autoload !== false) {
		api.loadPromise = api.init();
	}
})(window, window.jQuery, window._, window.Backbone);
