import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system) a process has used, in ms, from /proc (Linux; clock ticks of 10 ms), or `whenGone` when
 * it cannot be read (the process ended, or no /proc). utime and stime are fields 14 and 15 of stat (man 5 proc),
 * counted after the command name, which may hold spaces and parentheses.
 */
export function cpuMsOf(pid: number, whenGone = NaN): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
		return (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		return whenGone;
	}
}
