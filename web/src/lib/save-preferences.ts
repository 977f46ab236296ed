// How a preferences patch is saved: the page changes at once (optimistic) and then follows the
// server. Each change is a request of its own, and several can be in flight at once (hiding a
// card, then moving another); their answers may arrive in any order, and each holds only the
// changes the server had applied when it answered. Taking each answer as it came showed, for a
// moment or for good, a state without the later changes. So an answer is taken only when no other
// save overlapped it; after overlapping saves the last to settle fetches the user again.
import type { MutationOptions, QueryClient } from '@tanstack/react-query'
import type { Preferences, PreferencesPatch, User } from '#src/client/types.ts'
import { mergePreferences } from '#src/contract/merge-preferences.ts'

const SAVING = ['preferences', 'save']
const overlapped = new WeakSet<QueryClient>()

export function savePreferencesOptions(
  client: QueryClient,
  send: (patch: PreferencesPatch) => Promise<Preferences>,
): MutationOptions<Preferences, Error, PreferencesPatch, { before?: User }> {
  // A save's own mutation is still pending in its callbacks, so "alone" is a count of one.
  const alone = () => client.isMutating({ mutationKey: SAVING }) === 1
  return {
    mutationKey: SAVING,
    mutationFn: send,
    onMutate(patch) {
      if (!alone()) overlapped.add(client)
      const before = client.getQueryData<User>(['me'])
      if (before) client.setQueryData<User>(['me'], { ...before, preferences: mergePreferences(before.preferences, patch) })
      return { before }
    },
    onSettled(preferences, error, _patch, context) {
      if (!alone()) return // a later answer settles the page
      if (overlapped.delete(client)) void client.invalidateQueries({ queryKey: ['me'] })
      else if (error) { if (context?.before) client.setQueryData(['me'], context.before) }
      else client.setQueryData<User>(['me'], (user) => (user ? { ...user, preferences: preferences! } : user))
    },
  }
}
