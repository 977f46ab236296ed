import { AppError } from './errors.ts'

// Free text a request may hold (API-DECISIONS.md "Limits that protect every company"): 1 MiB
// of UTF-8 a field, beyond which the answer is 413 PAYLOAD_TOO_LARGE naming the field and its size.

export const TEXT_MAX_BYTES = 1024 * 1024

/** 413 naming the field when `text` is over `limit` bytes of UTF-8, as it is stored. */
export function checkTextSize(field: string, text: string | undefined | null, limit = TEXT_MAX_BYTES): void {
  // A character takes at most 3 bytes in UTF-16 terms: most texts are cleared without counting.
  if (text == null || text.length * 3 <= limit) return
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > limit) {
    throw new AppError('PAYLOAD_TOO_LARGE', `${field} is ${bytes} bytes: at most ${limit === TEXT_MAX_BYTES ? '1 MiB' : `${limit} bytes`} (${limit} bytes)`, {
      field, limit_bytes: limit, bytes,
    })
  }
}
