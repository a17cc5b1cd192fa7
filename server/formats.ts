// Text formats of the JobStatus fields and of the log. All times are UTC, all durations integer ms.

function pad(n: number, width = 2): string {
	return String(n).padStart(width, '0');
}

// `YYYY-MM-DD HH:mm:ss.SSS`, UTC.
export function formatTimestamp(ms: number): string {
	const d = new Date(ms);
	return (
		`${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
		`${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`
	);
}

// Seconds with exactly 3 decimals, computed on integers so there is no float rounding (1005 -> "1.005").
export function formatSeconds(ms: number): string {
	const whole = Math.max(0, Math.round(ms));
	return `${Math.floor(whole / 1000)}.${pad(whole % 1000, 3)}`;
}

// runtimeFormatted: `<seconds> seconds`.
export function formatRuntime(ms: number): string {
	return `${formatSeconds(ms)} seconds`;
}

// currentStepElapsedTime: `H:MM:SS` (hours not padded, can exceed 9).
export function formatElapsed(ms: number): string {
	const total = Math.max(0, Math.floor(ms / 1000));
	const h = Math.floor(total / 3600);
	const m = Math.floor((total % 3600) / 60);
	const s = total % 60;
	return `${h}:${pad(m)}:${pad(s)}`;
}
