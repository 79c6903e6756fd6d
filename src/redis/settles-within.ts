/** Waits for `work` at most `ms`; true when it settled in time (a rejection counts as settled). */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = () => true;
  try {
    return await Promise.race([work.then(settled, settled), late]);
  } finally {
    clearTimeout(timer);
  }
}
