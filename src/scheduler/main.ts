/** `shopfloor scheduler`: the scheduler as its own process. */
export async function runSchedulerProcess(args: string[]): Promise<void> {
  void args
  throw new Error('not built yet')
}
