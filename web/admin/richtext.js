/*
 * Folio admin, the content editor: a visual mode (Squire, with DOMPurify
 * cleaning what it loads and what is pasted) and an HTML mode (the raw
 * markup in a textarea). The stored content is never rewritten unless the
 * user edits it: until then getValue() returns the original text exactly.
 * Content with markup the visual mode would change (comments such as
 * block delimiters, scripts, embeds, forms) opens in HTML mode.
 */
(function (window, document) {
	'use strict';

	const A = window.folioAdmin;
	const el = A.el;

	const BLOCKS = 'table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary|audio|video|iframe|object|embed';
	const blockOpen = new RegExp('(<(?:' + BLOCKS + ')(?=[\\s/>]))', 'gi');
	const blockClose = new RegExp('(</(?:' + BLOCKS + ')>)', 'gi');
	const startsWithBlock = new RegExp('^</?(?:' + BLOCKS + ')(?=[\\s/>])', 'i');

	// autop turns text written with blank lines between paragraphs (as
	// WordPress stores it) into paragraphs for the visual mode, leaving
	// block-level HTML and <pre> contents alone. The server renders stored
	// content the same way, so what the visual mode shows is what readers
	// see.
	A.autop = function (text) {
		text = String(text || '').replace(/\r\n?/g, '\n');
		if (!text.trim()) {
			return '';
		}
		const kept = [];
		text = text.replace(/<pre[\s\S]*?<\/pre>/gi, (m) => {
			kept.push(m);
			return '\n\n\u0000' + (kept.length - 1) + '\u0000\n\n';
		});
		text = text.replace(blockOpen, '\n\n$1').replace(blockClose, '$1\n\n');
		const out = text.split(/\n\s*\n/).map((s) => s.trim()).filter(Boolean).map((chunk) => {
			if (/^\u0000\d+\u0000$/.test(chunk) || startsWithBlock.test(chunk)) {
				return chunk;
			}
			return '<p>' + chunk.replace(/\n/g, '<br>\n') + '</p>';
		}).join('\n');
		return out.replace(/\u0000(\d+)\u0000/g, (m, i) => kept[parseInt(i, 10)]);
	};

	// needsHTMLMode says whether the visual mode would lose part of text.
	A.needsHTMLMode = function (text) {
		return /<!--|<script|<style|<iframe|<object|<embed|<form|<input|<select|<textarea|<svg|<math|<canvas/i.test(text || '');
	};

	// tidy puts a line break after block-level closing tags so that the
	// HTML mode shows the visual mode's markup readably.
	function tidy(html) {
		// Squire keeps typed spaces next to formatting as &nbsp;; a lone one
		// between words is an ordinary space.
		html = html.replace(/(^|[^;\s])&nbsp;(?!&nbsp;|\s|<\/)/g, '$1 ');
		return html.replace(/(<\/(?:p|h[1-6]|ul|ol|li|blockquote|pre|div|table|tr|figure)>)(?!\n)/gi, '$1\n').replace(/<br>(?!\n)/gi, '<br>\n').trim();
	}

	function sanitize(html) {
		const frag = window.DOMPurify.sanitize(html, {
			ALLOW_UNKNOWN_PROTOCOLS: true,
			WHOLE_DOCUMENT: false,
			RETURN_DOM: true,
			RETURN_DOM_FRAGMENT: true,
			FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'button']
		});
		return frag ? document.importNode(frag, true) : document.createDocumentFragment();
	}

	const blockFormats = [['P', 'Paragraph'], ['H2', 'Heading 2'], ['H3', 'Heading 3'], ['H4', 'Heading 4'], ['PRE', 'Preformatted']];

	// A.richText builds the editor. opts: {label, value, onChange}. It
	// returns {node, getValue(), changed(), mode(), focus()}.
	A.richText = function (opts) {
		const original = opts.value || '';
		let touched = false;
		let mode = 'visual';
		let squire = null;
		const labelId = A.id('content-label');
		const note = el('p', { 'class': 'hint editor-note', id: A.id('content-note') });
		const area = el('div', {
			'class': 'visual-area',
			id: 'content-visual',
			role: 'textbox',
			'aria-multiline': 'true',
			'aria-labelledby': labelId,
			'aria-describedby': note.id,
			tabindex: '0'
		});
		const textarea = el('textarea', { id: 'content-html', 'class': 'html-area', rows: 18, spellcheck: 'false', 'aria-labelledby': labelId, 'aria-describedby': note.id });
		textarea.value = original;
		const touch = () => {
			if (!touched) {
				touched = true;
			}
			if (opts.onChange) {
				opts.onChange();
			}
		};
		textarea.addEventListener('input', touch);
		['beforeinput', 'paste', 'drop', 'cut'].forEach((ev) => area.addEventListener(ev, touch));
		// Squire handles Enter, deletions and its shortcuts itself (no
		// beforeinput then), so keys that edit count as edits too; moving
		// the cursor, selecting and copying do not.
		area.addEventListener('keydown', (e) => {
			const k = e.key;
			if ((e.ctrlKey || e.metaKey) ? /^[bikuzyx]$/i.test(k) : (k.length === 1 || k === 'Enter' || k === 'Backspace' || k === 'Delete')) {
				touch();
			}
		});

		const visualTab = el('button', { type: 'button', role: 'tab', 'class': 'mode-tab', id: 'mode-visual', text: 'Visual' });
		const htmlTab = el('button', { type: 'button', role: 'tab', 'class': 'mode-tab', id: 'mode-html', text: 'HTML' });

		// Toolbar: commands act on the visual mode's selection.
		const cmd = (label, fn, key) => el('button', {
			type: 'button',
			'class': 'tool',
			title: label + (key ? ' (' + key + ')' : ''),
			'aria-label': label,
			'data-cmd': label,
			onmousedown: (e) => e.preventDefault(),
			onclick: () => {
				if (!squire) {
					return;
				}
				fn();
				touch();
				squire.focus();
			}
		}, label === 'Bold' ? el('b', { text: 'B' }) : label === 'Italic' ? el('i', { text: 'I' }) : toolText[label] || label);
		const toolText = { 'Bulleted list': '\u2022 List', 'Numbered list': '1. List', 'Quote': '\u201c Quote', 'Link': 'Link', 'Remove link': 'Unlink', 'Undo': '\u21b6 Undo', 'Redo': '\u21b7 Redo' };
		const blockSelect = el('select', { 'class': 'tool-select', 'aria-label': 'Block format' }, blockFormats.map(([v, l]) => el('option', { value: v, text: l })));
		blockSelect.addEventListener('change', () => {
			if (!squire) {
				return;
			}
			const tag = blockSelect.value;
			squire.modifyBlocks((frag) => {
				Array.from(frag.childNodes).forEach((node) => {
					if (node.nodeType === 1 && /^(P|H[1-6]|DIV|PRE)$/.test(node.nodeName)) {
						const repl = document.createElement(tag);
						while (node.firstChild) {
							repl.appendChild(node.firstChild);
						}
						frag.replaceChild(repl, node);
					}
				});
				return frag;
			});
			touch();
			squire.focus();
		});
		const linkButton = cmd('Link', () => {}, 'Ctrl+K');
		linkButton.addEventListener('click', async () => {
			if (!squire) {
				return;
			}
			const range = squire.getSelection();
			const input = el('input', { type: 'url', id: A.id('link-url'), autofocus: true, placeholder: 'https://' });
			const ok = await A.dialog({
				title: 'Insert link',
				body: A.field('Link address (URL)', input),
				returnFocus: area,
				buttons: [{ label: 'Cancel', value: false }, { label: 'Insert link', value: true, primary: true }],
				onOpen: (d, done) => input.addEventListener('keydown', (e) => {
					if (e.key === 'Enter') {
						e.preventDefault();
						done(true);
					}
				})
			});
			squire.setSelection(range);
			if (ok && input.value.trim()) {
				squire.makeLink(input.value.trim());
				touch();
			}
			squire.focus();
		});
		const bold = cmd('Bold', () => (squire.hasFormat('B') ? squire.removeBold() : squire.bold()), 'Ctrl+B');
		const italic = cmd('Italic', () => (squire.hasFormat('I') ? squire.removeItalic() : squire.italic()), 'Ctrl+I');
		const toolbar = el('div', { 'class': 'toolbar', role: 'toolbar', 'aria-label': 'Formatting', 'aria-controls': 'content-visual' },
			blockSelect, bold, italic, linkButton,
			cmd('Remove link', () => squire.removeLink()),
			cmd('Bulleted list', () => squire.makeUnorderedList()),
			cmd('Numbered list', () => squire.makeOrderedList()),
			cmd('Quote', () => squire.increaseQuoteLevel()),
			cmd('Undo', () => squire.undo(), 'Ctrl+Z'),
			cmd('Redo', () => squire.redo(), 'Ctrl+Shift+Z'));

		function ensureSquire() {
			if (squire) {
				return;
			}
			squire = new window.Squire(area, {
				blockTag: 'P',
				sanitizeToDOMFragment: sanitize,
				didError: () => {}
			});
			squire.addEventListener('pathChange', () => {
				bold.setAttribute('aria-pressed', squire.hasFormat('B') ? 'true' : 'false');
				italic.setAttribute('aria-pressed', squire.hasFormat('I') ? 'true' : 'false');
				const path = squire.getPath() || '';
				const hit = blockFormats.find(([v]) => new RegExp('(^|>)' + v + '(>|$|\\.)').test(path));
				blockSelect.value = hit ? hit[0] : 'P';
			});
		}

		function setMode(next, silent) {
			if (next === mode && squire) {
				return;
			}
			if (next === 'visual') {
				ensureSquire();
				squire.setHTML(A.autop(textarea.value));
				area.hidden = false;
				textarea.hidden = true;
				toolbar.hidden = false;
				A.notice(note, A.needsHTMLMode(textarea.value) ? 'This content has markup (such as HTML comments, scripts or embeds) that the visual mode leaves out. Edit it in HTML mode to keep it.' : '', 'info');
			} else {
				if (mode === 'visual' && squire && touched) {
					textarea.value = tidy(squire.getHTML());
				}
				area.hidden = true;
				textarea.hidden = false;
				toolbar.hidden = true;
				A.notice(note, A.needsHTMLMode(textarea.value) && !silent ? 'This content has markup the visual mode would change, so it opens in HTML mode.' : '', 'info');
			}
			mode = next;
			visualTab.setAttribute('aria-selected', next === 'visual' ? 'true' : 'false');
			htmlTab.setAttribute('aria-selected', next === 'html' ? 'true' : 'false');
		}
		visualTab.addEventListener('click', () => setMode('visual'));
		htmlTab.addEventListener('click', () => setMode('html', true));

		const node = el('div', { 'class': 'richtext', id: 'content-editor' },
			el('div', { 'class': 'richtext-head' },
				el('span', { 'class': 'label', id: labelId, text: opts.label || 'Content' }),
				el('div', { role: 'tablist', 'aria-label': 'Editor mode', 'class': 'mode-tabs' }, visualTab, htmlTab)),
			toolbar, area, textarea, note);

		if (A.needsHTMLMode(original)) {
			mode = 'html';
			setMode('html');
			mode = 'html';
			visualTab.setAttribute('aria-selected', 'false');
			htmlTab.setAttribute('aria-selected', 'true');
		} else {
			mode = '';
			setMode('visual');
		}

		return {
			node: node,
			changed: () => touched,
			mode: () => mode,
			getValue: function () {
				if (!touched) {
					return original;
				}
				return mode === 'visual' ? tidy(squire.getHTML()) : textarea.value;
			},
			focus: () => (mode === 'visual' ? area.focus() : textarea.focus())
		};
	};
})(window, document);
