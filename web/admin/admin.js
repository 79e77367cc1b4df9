/*
 * Folio admin page: posts (list, search, paging, create and edit), media
 * (list and upload) and comment moderation, built on the bundled client
 * (folio.api). Views are chosen by the URL fragment: #posts, #posts/new,
 * #posts/<id>, #media, #comments.
 */
(function (window, $, _, Backbone) {
	'use strict';

	var api = window.folio.api;
	var main = document.getElementById('main');
	var statusBox = document.getElementById('status');
	var PER_PAGE = 10;

	// el builds an element: el('p', {class: 'x'}, 'text', child, ...).
	// Strings become text nodes, so nothing is parsed as HTML.
	function el(tag, attrs) {
		var node = document.createElement(tag);
		_.each(attrs || {}, function (v, k) {
			if (v === null || v === undefined || v === false) {
				return;
			}
			if (k === 'text') {
				node.textContent = v;
			} else if (k.slice(0, 2) === 'on') {
				node.addEventListener(k.slice(2), v);
			} else if (v === true) {
				node.setAttribute(k, '');
			} else {
				node.setAttribute(k, v);
			}
		});
		_.each(_.flatten(_.rest(arguments, 2)), function (c) {
			if (c === null || c === undefined || c === false) {
				return;
			}
			node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
		});
		return node;
	}

	function say(message, isError) {
		statusBox.textContent = message;
		statusBox.className = isError ? 'notice error' : 'notice';
	}

	function errorText(err) {
		if (err && err.getResponseHeader) {
			err = api.utils.errorOf(err);
		}
		err = err || {};
		if (err.code === 'rest_cookie_invalid_nonce' || err.status === 401) {
			return 'Your session has ended. Please sign in again.';
		}
		return (err.message || 'The request failed.') + (err.code ? ' (' + err.code + ')' : '');
	}

	function fail(err) {
		say(errorText(err), true);
	}

	// show replaces the main region with a view and moves focus to its
	// heading, so screen readers announce the new view.
	function show(title) {
		var h = el('h1', { id: 'view-title', tabindex: '-1', text: title });
		main.textContent = '';
		main.appendChild(h);
		document.title = title + ' \u2039 ' + (window.folioAdmin && window.folioAdmin.siteTitle || 'Admin');
		_.each(document.querySelectorAll('nav a'), function (a) {
			if (a.getAttribute('data-view') === currentView) {
				a.setAttribute('aria-current', 'page');
			} else {
				a.removeAttribute('aria-current');
			}
		});
		h.focus();
		return main;
	}

	function parseQuery(q) {
		var out = {};
		_.each((q || '').split('&'), function (pair) {
			if (!pair) {
				return;
			}
			var i = pair.indexOf('=');
			var k = decodeURIComponent((i < 0 ? pair : pair.slice(0, i)).replace(/\+/g, ' '));
			out[k] = i < 0 ? '' : decodeURIComponent(pair.slice(i + 1).replace(/\+/g, ' '));
		});
		return out;
	}

	function query(params) {
		var parts = [];
		_.each(params, function (v, k) {
			if (v !== '' && v !== undefined && v !== null) {
				parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(v));
			}
		});
		return parts.length ? '?' + parts.join('&') : '';
	}

	function raw(field) {
		if (field && typeof field === 'object') {
			return field.raw !== undefined ? field.raw : $('<div>').html(field.rendered || '').text();
		}
		return field || '';
	}

	function date(s) {
		return s ? s.replace('T', ' ').slice(0, 16) : '';
	}

	function pager(coll, hrefFor) {
		var st = coll.state, page = st.currentPage || 1, pages = st.totalPages || 1;
		return el('nav', { 'class': 'pager', 'aria-label': 'Pages' },
			page > 1 ? el('a', { href: hrefFor(page - 1), rel: 'prev', text: '\u2190 Previous' }) : null,
			el('span', { 'class': 'page-count', text: 'Page ' + page + ' of ' + pages + ' (' + st.totalObjects + ' items)' }),
			coll.hasMore() ? el('a', { href: hrefFor(page + 1), rel: 'next', text: 'Next \u2192' }) : null);
	}

	var currentView = '';

	// Posts list with search, status filter and paging.
	function postsView(q) {
		currentView = 'posts';
		var params = parseQuery(q);
		var page = Math.max(1, parseInt(params.page, 10) || 1);
		var search = params.search || '';
		var status = params.status || 'any';
		var m = show('Posts');
		var form = el('form', { 'class': 'filters', role: 'search', id: 'post-search' },
			el('label', { 'for': 'search-input', text: 'Search posts' }),
			el('input', { type: 'search', id: 'search-input', name: 'search', value: search }),
			el('label', { 'for': 'status-filter', text: 'Status' }),
			el('select', { id: 'status-filter', name: 'status' },
				_.map(['any', 'publish', 'draft', 'pending', 'private', 'future'], function (s) {
					return el('option', { value: s, selected: s === status, text: s === 'any' ? 'All' : s });
				})),
			el('button', { type: 'submit', text: 'Filter' }));
		form.addEventListener('submit', function (e) {
			e.preventDefault();
			router.navigate('posts' + query({ search: form.search.value, status: form.status.value }), { trigger: true });
		});
		m.appendChild(el('p', {}, el('a', { href: '#posts/new', 'class': 'button', text: 'Add new post' })));
		m.appendChild(form);
		var region = el('div', { id: 'posts-list', 'aria-busy': 'true' }, el('p', { text: 'Loading posts\u2026' }));
		m.appendChild(region);
		var posts = new api.collections.Posts();
		var data = { context: 'edit', per_page: PER_PAGE, page: page, status: status };
		if (search) {
			data.search = search;
		}
		posts.fetch({ data: data }).then(function () {
			region.textContent = '';
			region.setAttribute('aria-busy', 'false');
			if (!posts.length) {
				region.appendChild(el('p', { 'class': 'empty', text: search ? 'No posts match \u201c' + search + '\u201d.' : 'No posts yet.' }));
				return;
			}
			region.appendChild(el('table', { 'class': 'items' },
				el('caption', { 'class': 'screen-reader-text', text: 'Posts' }),
				el('thead', {}, el('tr', {},
					el('th', { scope: 'col', text: 'Title' }),
					el('th', { scope: 'col', text: 'Status' }),
					el('th', { scope: 'col', text: 'Date' }))),
				el('tbody', {}, posts.map(function (p) {
					return el('tr', { 'data-id': p.id },
						el('td', {}, el('a', { href: '#posts/' + p.id, text: raw(p.get('title')) || '(no title)' })),
						el('td', { text: p.get('status') }),
						el('td', {}, el('time', { datetime: p.get('date'), text: date(p.get('date')) })));
				}))));
			region.appendChild(pager(posts, function (n) {
				return '#posts' + query({ search: search, status: status === 'any' ? '' : status, page: n });
			}));
		}, function (xhr) {
			region.setAttribute('aria-busy', 'false');
			region.textContent = '';
			fail(xhr);
		});
	}

	// categoriesField shows the categories as checkboxes.
	function categoriesField(all, selected) {
		return el('fieldset', { id: 'categories-field' },
			el('legend', { text: 'Categories' }),
			all.length ? all.map(function (c) {
				var id = 'cat-' + c.id;
				return el('div', { 'class': 'check' },
					el('input', { type: 'checkbox', id: id, name: 'categories', value: c.id, checked: _.contains(selected, c.id) }),
					el('label', { 'for': id, text: c.get('name') }));
			}) : el('p', { text: 'No categories.' }));
	}

	// resolveTags turns comma-separated tag names into ids, creating the
	// tags that do not exist yet.
	function resolveTags(names) {
		names = _.uniq(_.compact(_.map(names.split(','), function (n) { return $.trim(n); })));
		return $.when.apply($, _.map(names, function (name) {
			var found = new api.collections.Tags();
			return found.fetch({ data: { search: name, per_page: 100 } }).then(function () {
				var hit = found.find(function (t) { return t.get('name').toLowerCase() === name.toLowerCase(); });
				if (hit) {
					return hit.id;
				}
				var tag = new api.models.Tag({ name: name });
				return tag.save().then(function () { return tag.id; });
			});
		})).then(function () {
			return _.filter(_.toArray(arguments), _.isNumber);
		});
	}

	// featuredField lists uploaded images as radio buttons and offers an
	// upload field for a new one.
	function featuredField(images, selected) {
		var list = el('div', { 'class': 'media-choices' },
			el('div', { 'class': 'check' },
				el('input', { type: 'radio', id: 'featured-none', name: 'featured_media', value: '0', checked: !selected }),
				el('label', { 'for': 'featured-none', text: 'No featured image' })),
			images.map(function (img) {
				var id = 'featured-' + img.id;
				return el('div', { 'class': 'check' },
					el('input', { type: 'radio', id: id, name: 'featured_media', value: img.id, checked: selected === img.id }),
					el('label', { 'for': id }, thumb(img), ' ', raw(img.get('title')) || ('#' + img.id)));
			}));
		return el('fieldset', { id: 'featured-field' },
			el('legend', { text: 'Featured image' }),
			list,
			el('label', { 'for': 'featured-upload', text: 'Or upload a new image' }),
			el('input', { type: 'file', id: 'featured-upload', name: 'featured_upload', accept: 'image/*' }));
	}

	function thumb(img) {
		var d = img.get('media_details') || {}, sizes = d.sizes || {};
		var src = (sizes.thumbnail && sizes.thumbnail.source_url) || img.get('source_url');
		return src ? el('img', { src: src, alt: img.get('alt_text') || '', width: 48, height: 48, 'class': 'thumb' }) : null;
	}

	// Post editor: title, content, status, categories, tags and featured
	// image. id is undefined for a new post.
	function editView(id) {
		currentView = id ? 'posts' : 'new';
		var m = show(id ? 'Edit post' : 'New post');
		var post = id ? new api.models.Post({ id: parseInt(id, 10) }) : new api.models.Post({ status: 'draft' });
		var cats = new api.collections.Categories();
		var images = api.collections.Media ? new api.collections.Media() : null;
		var loads = [cats.fetch({ data: { per_page: 100 } })];
		if (images) {
			loads.push(images.fetch({ data: { per_page: 50, media_type: 'image' } }).then(null, function () {
				return $.Deferred().resolve().promise();
			}));
		}
		if (id) {
			loads.push(post.fetch({ data: { context: 'edit' } }));
		}
		var busy = el('p', { text: 'Loading\u2026' });
		m.appendChild(busy);
		$.when.apply($, loads).then(function () {
			var tagIds = post.get('tags') || [];
			var tagsNow = new api.collections.Tags();
			var tagLoad = tagIds.length ? tagsNow.fetch({ data: { include: tagIds.join(','), per_page: 100 } }) : $.Deferred().resolve().promise();
			return tagLoad.then(function () { return tagsNow; });
		}).then(function (tagsNow) {
			m.removeChild(busy);
			var statusSel = el('select', { id: 'post-status', name: 'status' },
				_.map([['draft', 'Draft'], ['pending', 'Pending review'], ['publish', 'Published'], ['private', 'Private']], function (s) {
					return el('option', { value: s[0], selected: post.get('status') === s[0], text: s[1] });
				}));
			var form = el('form', { id: 'post-form', 'class': 'editor', novalidate: true },
				el('p', {}, el('label', { 'for': 'post-title', text: 'Title' }),
					el('input', { type: 'text', id: 'post-title', name: 'title', value: raw(post.get('title')), required: true })),
				el('p', {}, el('label', { 'for': 'post-content', text: 'Content' }),
					el('textarea', { id: 'post-content', name: 'content', rows: 12 }, raw(post.get('content')))),
				el('p', {}, el('label', { 'for': 'post-status', text: 'Status' }), statusSel),
				categoriesField(cats, post.get('categories') || []),
				el('p', {}, el('label', { 'for': 'post-tags', text: 'Tags (separate with commas)' }),
					el('input', { type: 'text', id: 'post-tags', name: 'tags', value: tagsNow.pluck('name').join(', ') })),
				images ? featuredField(images, post.get('featured_media') || 0) : null,
				el('p', { 'class': 'actions' },
					el('button', { type: 'submit', id: 'save-post', text: id ? 'Update' : 'Save' }),
					post.get('link') ? el('a', { href: post.get('link'), id: 'view-post', text: 'View post' }) : null));
			m.appendChild(form);
			form.addEventListener('submit', function (e) {
				e.preventDefault();
				var button = form.querySelector('#save-post');
				button.disabled = true;
				say('Saving\u2026');
				var file = form.featured_upload && form.featured_upload.files[0];
				var upload = file ? api.upload(file, { title: file.name.replace(/\.[^.]+$/, '') }) : $.Deferred().resolve(null).promise();
				$.when(upload, resolveTags(form.tags.value)).then(function (media, tags) {
					var attrs = {
						title: form.title.value,
						content: form.content.value,
						status: form.status.value,
						categories: _.map(form.querySelectorAll('input[name=categories]:checked'), function (c) { return parseInt(c.value, 10); }),
						tags: tags
					};
					if (media) {
						attrs.featured_media = media.id;
					} else if (form.querySelector('input[name=featured_media]:checked')) {
						attrs.featured_media = parseInt(form.querySelector('input[name=featured_media]:checked').value, 10);
					}
					return post.save(attrs, { patch: !post.isNew(), wait: true });
				}).then(function () {
					button.disabled = false;
					say(id ? 'Post updated.' : 'Post saved.');
					if (!id) {
						router.navigate('posts/' + post.id, { trigger: true, replace: true });
						say('Post saved.');
					} else {
						editView(post.id);
						say('Post updated.');
					}
				}, function (err) {
					button.disabled = false;
					fail(err);
				});
			});
		}, function (xhr) {
			busy.textContent = '';
			fail(xhr);
		});
	}

	// Media library with upload.
	function mediaView() {
		currentView = 'media';
		var m = show('Media');
		if (!api.collections.Media) {
			m.appendChild(el('p', { text: 'This site does not offer media uploads.' }));
			return;
		}
		var form = el('form', { id: 'upload-form', 'class': 'upload' },
			el('p', {}, el('label', { 'for': 'upload-file', text: 'File' }),
				el('input', { type: 'file', id: 'upload-file', name: 'file', required: true })),
			el('p', {}, el('label', { 'for': 'upload-alt', text: 'Alternative text (for images)' }),
				el('input', { type: 'text', id: 'upload-alt', name: 'alt_text' })),
			el('p', {}, el('button', { type: 'submit', id: 'upload-button', text: 'Upload' })));
		var list = el('ul', { id: 'media-list', 'class': 'media-list' });
		var more = el('button', { type: 'button', id: 'media-more', text: 'Load more', hidden: true });
		m.appendChild(form);
		m.appendChild(list);
		m.appendChild(more);
		var media = new api.collections.Media();
		function item(x) {
			return el('li', { 'data-id': x.id }, thumb(x), ' ',
				el('a', { href: x.get('source_url'), text: raw(x.get('title')) || x.get('source_url') }),
				' ', el('span', { 'class': 'meta', text: x.get('mime_type') }));
		}
		function render() {
			list.textContent = '';
			media.each(function (x) { list.appendChild(item(x)); });
			if (!media.length) {
				list.appendChild(el('li', { 'class': 'empty', text: 'No media yet.' }));
			}
			more.hidden = !media.hasMore();
		}
		media.fetch({ data: { per_page: 20 } }).then(render, fail);
		more.addEventListener('click', function () {
			media.more().then(render, fail);
		});
		form.addEventListener('submit', function (e) {
			e.preventDefault();
			var file = form.file.files[0];
			if (!file) {
				say('Choose a file to upload.', true);
				return;
			}
			say('Uploading\u2026');
			api.upload(file, { alt_text: form.alt_text.value }).then(function (x) {
				media.add(x, { at: 0 });
				render();
				form.reset();
				say('Uploaded ' + (raw(x.get('title')) || file.name) + '.');
			}, fail);
		});
	}

	// Comment moderation: approve, hold, spam and trash.
	function commentsView(q) {
		currentView = 'comments';
		var params = parseQuery(q);
		var status = params.status || 'hold';
		var page = Math.max(1, parseInt(params.page, 10) || 1);
		var m = show('Comments');
		var filters = el('nav', { 'class': 'filters', 'aria-label': 'Comment status' },
			_.map([['hold', 'Pending'], ['approve', 'Approved'], ['spam', 'Spam'], ['trash', 'Trash']], function (s) {
				return el('a', { href: '#comments' + query({ status: s[0] }), 'aria-current': s[0] === status ? 'true' : null, text: s[1] });
			}));
		m.appendChild(filters);
		var region = el('div', { id: 'comments-list', 'aria-busy': 'true' });
		m.appendChild(region);
		var comments = new api.collections.Comments();
		comments.fetch({ data: { context: 'edit', status: status, per_page: PER_PAGE, page: page } }).then(function () {
			region.setAttribute('aria-busy', 'false');
			if (!comments.length) {
				region.appendChild(el('p', { 'class': 'empty', text: 'No comments here.' }));
				return;
			}
			region.appendChild(el('ul', { 'class': 'comments' }, comments.map(function (c) {
				var actions = [];
				if (status !== 'approve') {
					actions.push(['approved', 'Approve']);
				}
				if (status === 'approve') {
					actions.push(['hold', 'Unapprove']);
				}
				if (status !== 'spam') {
					actions.push(['spam', 'Spam']);
				}
				if (status !== 'trash') {
					actions.push(['trash', 'Trash']);
				}
				return el('li', { 'data-id': c.id },
					el('p', { 'class': 'meta' }, el('strong', { text: c.get('author_name') || 'Anonymous' }),
						' on post #' + c.get('post') + ', ', el('time', { datetime: c.get('date'), text: date(c.get('date')) })),
					el('blockquote', { text: raw(c.get('content')) }),
					el('p', { 'class': 'actions' }, _.map(actions, function (a) {
						return el('button', {
							type: 'button',
							'aria-label': a[1] + ' comment by ' + (c.get('author_name') || 'Anonymous'),
							text: a[1],
							onclick: function () {
								var done = a[0] === 'trash' ? c.destroy({ wait: true }) : c.save({ status: a[0] }, { patch: true, wait: true });
								done.then(function () {
									say('Comment ' + (a[0] === 'approved' ? 'approved' : a[0] === 'hold' ? 'unapproved' : 'moved to ' + a[0]) + '.');
									commentsView(q);
								}, fail);
							}
						});
					})));
			})));
			region.appendChild(pager(comments, function (n) {
				return '#comments' + query({ status: status, page: n });
			}));
		}, function (xhr) {
			region.setAttribute('aria-busy', 'false');
			fail(xhr);
		});
	}

	var Router = Backbone.Router.extend({
		routes: {
			'': 'posts',
			'posts': 'posts',
			'posts/new': 'newPost',
			'posts/:id': 'editPost',
			'media': 'media',
			'comments': 'comments'
		},
		execute: function (callback, args) {
			if (callback) {
				statusBox.textContent = '';
				statusBox.className = 'notice';
				callback.apply(this, args);
			}
			return false;
		},
		posts: function (q) { postsView(q); },
		newPost: function () { editView(); },
		editPost: function (id) { editView(id); },
		media: function () { mediaView(); },
		comments: function (q) { commentsView(q); }
	});
	var router;

	api.on('error', function (err) {
		if (err.code === 'rest_cookie_invalid_nonce') {
			say(errorText(err), true);
		}
	});

	(api.loadPromise || api.init()).then(function () {
		router = new Router();
		document.body.setAttribute('data-ready', 'true');
		Backbone.history.start();
	}, function (err) {
		main.textContent = '';
		main.appendChild(el('p', { 'class': 'error', text: 'The API could not be loaded: ' + errorText(err) }));
	});
})(window, window.jQuery, window._, window.Backbone);
