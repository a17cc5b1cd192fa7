// The store's indexes: each operation touches a few jobs, never the whole backlog.

// FIFO with O(1) push and shift (Array.shift is O(n) once V8 leaves its fast path for large arrays).
export class Deque<T> {
	private items: T[] = [];
	private head = 0;

	get length(): number {
		return this.items.length - this.head;
	}

	push(item: T): void {
		this.items.push(item);
	}

	shift(): T | undefined {
		if (this.head >= this.items.length) return undefined;
		const item = this.items[this.head];
		(this.items as (T | undefined)[])[this.head] = undefined;
		this.head++;
		// Compact once the dead prefix dominates: amortized O(1).
		if (this.head > 1024 && this.head * 2 > this.items.length) {
			this.items = this.items.slice(this.head);
			this.head = 0;
		}
		return item;
	}

	// Inserts keeping the order given by `key` ascending; searches from the back, where new items land.
	insertSorted(item: T, key: (item: T) => number): void {
		const k = key(item);
		let i = this.items.length;
		if (i === this.head || key(this.items[i - 1]) <= k) {
			this.items.push(item);
			return;
		}
		let lo = this.head;
		let hi = i;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (key(this.items[mid]) <= k) lo = mid + 1;
			else hi = mid;
		}
		i = lo;
		this.items.splice(i, 0, item);
	}

	*newestFirst(): Generator<T> {
		for (let i = this.items.length - 1; i >= this.head; i--) yield this.items[i];
	}

	*oldestFirst(): Generator<T> {
		for (let i = this.head; i < this.items.length; i++) yield this.items[i];
	}
}

// Binary min-heap ordered by `before` (the running jobs by end time: the next end is found in O(log n)).
export class MinHeap<T> {
	private readonly items: T[] = [];

	constructor(private readonly before: (a: T, b: T) => boolean) {}

	get size(): number {
		return this.items.length;
	}

	peek(): T | undefined {
		return this.items[0];
	}

	values(): readonly T[] {
		return this.items;
	}

	push(item: T): void {
		const a = this.items;
		a.push(item);
		let i = a.length - 1;
		while (i > 0) {
			const parent = (i - 1) >> 1;
			if (!this.before(a[i], a[parent])) break;
			[a[i], a[parent]] = [a[parent], a[i]];
			i = parent;
		}
	}

	pop(): T | undefined {
		const a = this.items;
		if (a.length === 0) return undefined;
		const top = a[0];
		const last = a.pop() as T;
		if (a.length > 0) {
			a[0] = last;
			let i = 0;
			for (;;) {
				const l = 2 * i + 1;
				const r = l + 1;
				let m = i;
				if (l < a.length && this.before(a[l], a[m])) m = l;
				if (r < a.length && this.before(a[r], a[m])) m = r;
				if (m === i) break;
				[a[i], a[m]] = [a[m], a[i]];
				i = m;
			}
		}
		return top;
	}
}
