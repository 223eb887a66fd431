// The native build's helper programs (CMake targets in build/native).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export function runNative(tool: string, args: string[] = []): string {
  return execFileSync(join(__dirname, '../../build/native', tool), args, { maxBuffer: 1 << 28 }).toString();
}
