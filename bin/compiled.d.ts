/** See compiled.js: the compiled entry module of `entry`, or null where no cache can be kept. */
export function compiledEntry(root: string, entry: string, cacheDir?: string): Promise<string | null>
