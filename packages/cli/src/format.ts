/** Text formatting shared by the commands. */
import { validateSize } from '@rmmjs/core/internal';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Bytes in binary units: `1000 B`, `1.5 KiB`, `64 MiB` (one decimal where it is not zero). */
export function formatBytes(bytes: number): string {
  let value = validateSize(bytes, 'bytes');
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${UNITS[unit]}`;
}

/** An integer with thousands separated by commas: `1,048,576`. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 0 });
}

/** Rows of cells as columns: the first column left-aligned, the others right-aligned. */
export function formatTable(rows: string[][], { alignLeft = 1 }: { alignLeft?: number } = {}): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i < alignLeft ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}
