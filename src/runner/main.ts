/** `shopfloor runner`: claims and executes agents' runs. */
export async function runRunnerProcess(args: string[]): Promise<void> {
  void args
  throw new Error('not built yet')
}
