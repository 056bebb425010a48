import type { DeviceMemoryResource } from '@rmmjs/core';

export const CUDA_BASES: string[];
/** 'Statistics(Pool(Cuda))' -> ['Statistics', 'Pool', 'Cuda']; throws on an unknown name. */
export function parseStack(spec: string): string[];
export function needsCuda(spec: string): boolean;

/** By layer name (`Statistics`), by registered counter (`allocationCounts`, `getAllocatedBytes`). */
export type Counters = Record<string, Record<string, number | { currentBytes: number; currentCount: number }>>;

export interface Stack {
  spec: string;
  top: DeviceMemoryResource;
  /** Outermost first. */
  layers: { name: string; mr: DeviceMemoryResource }[];
  /** Counts what the stack holds from its base. */
  meter: DeviceMemoryResource & { getAllocatedBytes(): number };
  /** What the counting adaptors above the first sub-allocator say now. */
  counters(): Counters;
  /** Disposes every layer; returns the bytes still held from the base (0: all given back). */
  close(): number;
}

export function buildStack(spec: string, options?: { poolSize?: number }): Stack;
/** What counters() must say while `capacities` are all that was allocated through the stack. */
export function expectedCounters(stack: Stack, capacities: number[]): Counters;
