// Writes 'written\n' to the file RMM_DEBUG_LOG_FILE names (runInProcess's debugLog reads it back).
import { writeFileSync } from 'node:fs';

writeFileSync(/** @type {string} */ (process.env.RMM_DEBUG_LOG_FILE), 'written\n');
