// The part of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
	interface Options {
		url: string;
		connections?: number;
		duration?: number;
		method?: 'GET' | 'POST';
		headers?: Record<string, string>;
		body?: string;
	}
	interface Histogram {
		average: number;
		p50: number;
		p99: number;
		max: number;
	}
	interface Result {
		requests: Histogram & { total: number };
		latency: Histogram;
		duration: number;
		errors: number;
		timeouts: number;
		non2xx: number;
	}
	function autocannon(options: Options): Promise<Result>;
	export = autocannon;
}
