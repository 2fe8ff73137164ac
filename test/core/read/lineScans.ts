/** A big file of numbered lines, and a count of the line scans made over a buffer of its size (tests only). */
export const LINES = 8000;
export const line = (i: number) => `const value_${String(i).padStart(6, '0')} = compute(${i}, "abcdefghijklmnop");`;
/** LINES lines, 580 KB: above the 256 KiB from which an edit's index is kept */
export const bigText = () => Array.from({ length: LINES }, (_, i) => line(i + 1)).join('\n') + '\n';

/**
 * Counts indexOf(10) calls on buffers of `size` bytes (a line scan makes one per line) until `restore()`;
 * `count` is read and reset by the test.
 */
export function countLineScans(size: number): { count: number; restore(): void } {
  const { indexOf } = Buffer.prototype;
  const counter = {
    count: 0,
    restore: () => void (Buffer.prototype.indexOf = indexOf),
  };
  Buffer.prototype.indexOf = function (this: Buffer, value: unknown, ...rest: unknown[]) {
    if (value === 10 && this.length === size) counter.count++;
    return (indexOf as (...a: unknown[]) => number).call(this, value, ...rest);
  } as typeof indexOf;
  return counter;
}
