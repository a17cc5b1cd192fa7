/**
 * The search for every form at once: an Aho–Corasick automaton over the forms in any case, so a reading is searched
 * in one pass whatever the forms hold (a key of one repeated letter too), each character costing the same work
 * whatever the keys' length. A Scanner runs it over a reading piece by piece, its state carried from one piece to
 * the next, so a form across two pieces is found with no overlap searched twice.
 */
import { stringOf } from './readings';
import type { Chars } from './readings';

/** How a form matches: a key as a token; base64 anywhere; hex anywhere, and the only forms searched in the hex reading. */
export const Kind = { Token: 0, Anywhere: 1, Hex: 2 } as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

export interface Form {
	text: string;
	kind: Kind;
}

let foldTable: Uint16Array | undefined;

/** Each UTF-16 unit in lower case, where that is one unit on the same side of ASCII (as a regex's flag i reads case). */
export function folding(): Uint16Array {
	if (foldTable !== undefined) return foldTable;
	const table = new Uint16Array(65536);
	for (let code = 0; code < 65536; code++) {
		const lower = String.fromCharCode(code).toLowerCase();
		const folded = lower.length === 1 ? lower.charCodeAt(0) : code;
		table[code] = (folded < 128) === (code < 128) ? folded : code;
	}
	foldTable = table;
	return table;
}

export const MANY = -2;

/** Characters of each form's start the native search looks for (every form is longer: MIN_ENCODED_LENGTH). */
const PREFIX_CHARS = 4;

let unfolded: Map<number, number[]> | undefined;

/** A regex class of every unit that folds as `code` does. */
function unitClass(code: number, fold: Uint16Array): string {
	if (unfolded === undefined) {
		const made = new Map<number, number[]>();
		for (let unit = 0; unit < 65536; unit++) if (fold[unit] !== unit) made.set(fold[unit], [...(made.get(fold[unit]) ?? []), unit]);
		unfolded = made;
	}
	const units = [fold[code], ...(unfolded.get(fold[code]) ?? [])].map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`);
	return units.length === 1 ? units[0] : `[${units.join('')}]`;
}

/**
 * A native search for the forms' first PREFIX_CHARS characters in any case (each character as the class of units
 * that fold as it does, so it finds all the automaton can): where none starts, no form does, and the scanner, back
 * at its root, skips ahead to the next place one might.
 */
function prefixSearch(forms: readonly string[], fold: Uint16Array, joint = ''): RegExp {
	const classes = new Map<number, string>();
	const classOf = (code: number) => {
		const known = classes.get(fold[code]);
		if (known !== undefined) return known;
		const made = unitClass(code, fold);
		classes.set(fold[code], made);
		return made;
	};
	const prefixes = new Set<string>();
	for (const form of forms) {
		let prefix = '';
		for (let at = 0; at < Math.min(PREFIX_CHARS, form.length); at++) prefix += (at > 0 ? joint : '') + classOf(form.charCodeAt(at));
		prefixes.add(prefix);
	}
	return prefixes.size === 0 ? /$^/g : new RegExp([...prefixes].join('|'), 'g');
}

function isAlphanumeric(code: number): boolean {
	return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
}

/** The automaton: a trie of the folded forms, failure links, and for each state the form it ends (if any). */
export class Automaton {
	/** Per state: its one child's character (MANY: see `many`, -1: none) and that child. */
	private readonly childCode: number[] = [-1];
	private readonly childState: number[] = [0];
	private readonly many = new Map<number, Map<number, number>>();
	readonly root = new Int32Array(65536);
	fail = new Int32Array(1);
	/** Per state: how many characters it has read (the longest form prefix it stands for). */
	depth: number[] = [0];
	/** Per state: the form it ends, or -1. */
	formAt: number[] = [-1];
	/** Per state: the nearest state along its failure links that ends a form, or -1. */
	dictionary = new Int32Array(1);
	readonly lengths: number[] = [];
	readonly kinds: Kind[] = [];
	/** Per form: whether a letter or digit must not touch it before / after (a token whose edge is one). */
	readonly before: boolean[] = [];
	readonly after: boolean[] = [];
	readonly longest: number;
	readonly shortest: number;
	/** Where a form may start: its first characters (PREFIX_CHARS), in any case, as one native search. */
	starts: RegExp = /$^/g;
	/** The same, with a line break allowed between them: where a form may start in the text's unwrap reading. */
	wrappedStarts: RegExp = /$^/g;
	/** The tables above as typed arrays, for the scanner's loop. */
	tables = { childCode: new Int32Array(0), childState: new Int32Array(0), formAt: new Int32Array(0) };

	constructor(forms: readonly Form[]) {
		const fold = folding();
		for (const form of forms) this.insert(form, fold);
		this.longest = Math.max(0, ...this.lengths);
		this.shortest = this.lengths.length === 0 ? Infinity : Math.min(...this.lengths);
		this.link();
		this.starts = prefixSearch(forms.map((form) => form.text), fold);
		this.wrappedStarts = prefixSearch(
			forms.map((form) => form.text),
			fold,
			'(?:\\r\\n|\\r|\\n)?',
		);
		this.tables = { childCode: Int32Array.from(this.childCode), childState: Int32Array.from(this.childState), formAt: Int32Array.from(this.formAt) };
	}

	/** The child of a state that has several (the trie's branching points), or -1. */
	branch(state: number, code: number): number {
		return this.many.get(state)?.get(code) ?? -1;
	}

	/** The state after reading `code` (folded) in state `state`, following failure links. */
	next(state: number, code: number): number {
		for (let at = state; ; at = this.fail[at]) {
			if (at === 0) return this.root[code];
			const child = this.child(at, code);
			if (child >= 0) return child;
		}
	}

	child(state: number, code: number): number {
		if (state === 0) return this.root[code] === 0 ? -1 : this.root[code];
		const only = this.childCode[state];
		if (only === code) return this.childState[state];
		return only === MANY ? (this.many.get(state)?.get(code) ?? -1) : -1;
	}

	private insert(form: Form, fold: Uint16Array): void {
		let state = 0;
		for (let at = 0; at < form.text.length; at++) {
			const code = fold[form.text.charCodeAt(at)];
			let child = this.child(state, code);
			if (child < 0) child = this.addChild(state, code);
			state = child;
		}
		if (this.formAt[state] >= 0) {
			// The same text twice: the kind matching in more places wins.
			const known = this.formAt[state];
			if (form.kind > this.kinds[known]) {
				this.kinds[known] = form.kind;
				this.before[known] = false;
				this.after[known] = false;
			}
			return;
		}
		this.formAt[state] = this.lengths.length;
		this.lengths.push(form.text.length);
		this.kinds.push(form.kind);
		this.before.push(form.kind === Kind.Token && isAlphanumeric(form.text.charCodeAt(0)));
		this.after.push(form.kind === Kind.Token && isAlphanumeric(form.text.charCodeAt(form.text.length - 1)));
	}

	private addChild(state: number, code: number): number {
		const child = this.childCode.length;
		this.childCode.push(-1);
		this.childState.push(0);
		this.depth.push(this.depth[state] + 1);
		this.formAt.push(-1);
		if (state === 0) this.root[code] = child;
		else if (this.childCode[state] === -1) {
			this.childCode[state] = code;
			this.childState[state] = child;
		} else {
			if (this.childCode[state] !== MANY) {
				this.many.set(state, new Map([[this.childCode[state], this.childState[state]]]));
				this.childCode[state] = MANY;
			}
			this.many.get(state)?.set(code, child);
		}
		return child;
	}

	private children(state: number): Array<[number, number]> {
		if (state === 0) {
			const found: Array<[number, number]> = [];
			for (let code = 0; code < 65536; code++) if (this.root[code] !== 0) found.push([code, this.root[code]]);
			return found;
		}
		const only = this.childCode[state];
		if (only === MANY) return [...(this.many.get(state) ?? new Map<number, number>())];
		return only === -1 ? [] : [[only, this.childState[state]]];
	}

	/** Failure and dictionary links, breadth first. */
	private link(): void {
		const states = this.childCode.length;
		this.fail = new Int32Array(states);
		this.dictionary = new Int32Array(states).fill(-1);
		const queue: number[] = [];
		for (const [, child] of this.children(0)) queue.push(child);
		for (let head = 0; head < queue.length; head++) {
			const state = queue[head];
			const fail = this.fail[state];
			this.dictionary[state] = this.formAt[fail] >= 0 ? fail : this.dictionary[fail];
			for (const [code, child] of this.children(state)) {
				this.fail[child] = this.next(fail, code);
				queue.push(child);
			}
		}
	}
}

/** Where a form was found in the text: [start, end), and its kind. */
export type Found = (start: number, end: number, kind: Kind) => void;

/**
 * The automaton run over one reading, piece by piece. Keeps the last characters read (as many as the longest form,
 * and one more) to map a form back to the text and judge a token's edge: a letter or digit right before or after it
 * in the reading, with no line break dropped between, means the key sits inside a longer run, and is left alone.
 */
export class Scanner {
	private state = 0;
	private read = 0;
	private readonly mask: number;
	private readonly codes: Uint16Array;
	private readonly starts: Int32Array;
	private readonly ends: Int32Array;
	/** Tokens found, whose edge after them waits for the next character: their starts, and their end's index. */
	private readonly pendingStarts: number[] = [];
	private pendingAt = -1;
	private readonly fold = folding();

	/** `hexOnly`: the hex reading, where only hex forms are searched. */
	constructor(
		private readonly automaton: Automaton,
		private readonly hexOnly: boolean,
		private readonly found: Found,
	) {
		let size = 2;
		while (size < automaton.longest + 2) size *= 2;
		this.mask = size - 1;
		this.codes = new Uint16Array(size);
		this.starts = new Int32Array(size);
		this.ends = new Int32Array(size);
	}

	reset(): void {
		this.state = 0;
		this.read = 0;
		if (this.pendingStarts.length > 0) this.pendingStarts.length = 0;
	}

	/** Where the earliest form that may still be found starts in the text, or Infinity. */
	openFrom(): number {
		const depth = this.automaton.depth[this.state];
		let open = depth > 0 ? this.starts[(this.read - depth) & this.mask] : Infinity;
		for (const start of this.pendingStarts) open = Math.min(open, start);
		return open;
	}

	/** Runs the automaton over a piece; returns the work: its characters, and the links followed (failures, forms found). */
	scan(chars: Chars): number {
		let work = chars.length;
		const { codes, starts, ends, length, lazy, offset } = chars;
		const plain = chars.plain ?? '';
		const automaton = this.automaton;
		const { childCode, childState, formAt } = automaton.tables;
		const { root, fail, dictionary } = automaton;
		const fold = this.fold;
		const mask = this.mask;
		let state = this.state;
		const search = automaton.starts;
		let text: string | undefined;
		for (let index = 0; index < length; index++) {
			if (state === 0 && this.pendingStarts.length === 0) {
				// At the root no form is begun: skip natively to where one may start (keeping the character before it).
				text ??= stringOf(chars, 0, length);
				search.lastIndex = index;
				// A form starting in the piece's last characters shows no whole prefix here: those are read one by one.
				const next = search.exec(text)?.index ?? Math.max(index, length - PREFIX_CHARS + 1);
				if (next > index) {
					this.read += next - index;
					index = next;
					this.remember(index - 1, chars);
					if (index === length) break;
				}
			}
			// The text's own characters are read from the text (their arrays are not filled: Chars.fill).
			const code = lazy ? plain.charCodeAt(offset + index) : codes[index];
			const start = lazy ? offset + index : starts[index];
			if (this.pendingStarts.length > 0) this.settle(code, start);
			const slot = this.read & mask;
			this.codes[slot] = code;
			this.starts[slot] = start;
			this.ends[slot] = lazy ? start + 1 : ends[index];
			// The automaton's step, inlined: the loop every character of every reading goes through.
			const folded = fold[code];
			for (;;) {
				if (state === 0) {
					state = root[folded];
					break;
				}
				const only = childCode[state];
				const child = only === folded ? childState[state] : only === MANY ? automaton.branch(state, folded) : -1;
				if (child >= 0) {
					state = child;
					break;
				}
				state = fail[state];
				work++;
			}
			this.state = state;
			for (let at = formAt[state] >= 0 ? state : dictionary[state]; at >= 0; at = dictionary[at], work++) this.report(formAt[at]);
			this.read++;
		}
		return work;
	}

	/** Keeps the character at `index` of the piece as the last one read (the one before a form's start). */
	private remember(index: number, chars: Chars): void {
		const slot = (this.read - 1) & this.mask;
		if (chars.lazy && chars.plain !== undefined) {
			this.codes[slot] = chars.plain.charCodeAt(chars.offset + index);
			this.starts[slot] = chars.offset + index;
			this.ends[slot] = chars.offset + index + 1;
			return;
		}
		this.codes[slot] = chars.codes[index];
		this.starts[slot] = chars.starts[index];
		this.ends[slot] = chars.ends[index];
	}

	/** The reading ended: a token waiting for its edge after has none. */
	finish(): void {
		for (const start of this.pendingStarts) this.found(start, this.ends[this.pendingAt & this.mask], Kind.Token);
		if (this.pendingStarts.length > 0) this.pendingStarts.length = 0;
	}

	private report(form: number): void {
		const automaton = this.automaton;
		const kind = automaton.kinds[form];
		if (this.hexOnly && kind !== Kind.Hex) return;
		const last = this.read;
		const first = last - automaton.lengths[form] + 1;
		const start = this.starts[first & this.mask];
		if (automaton.before[form] && first > 0 && this.touches(first - 1, this.codes[(first - 1) & this.mask], start)) return;
		if (automaton.after[form]) {
			this.pendingStarts.push(start);
			this.pendingAt = last;
			return;
		}
		this.found(start, this.ends[last & this.mask], kind);
	}

	/** Whether the character at `index` (code `code`) touches the one starting at `start`: a letter or digit, no break between. */
	private touches(index: number, code: number, start: number): boolean {
		return isAlphanumeric(code) && this.ends[index & this.mask] >= start;
	}

	/** The next character after waiting tokens is read: each is a token unless it touches them. */
	private settle(code: number, start: number): void {
		const end = this.ends[this.pendingAt & this.mask];
		if (!(isAlphanumeric(code) && end >= start)) for (const first of this.pendingStarts) this.found(first, end, Kind.Token);
		if (this.pendingStarts.length > 0) this.pendingStarts.length = 0;
	}
}
