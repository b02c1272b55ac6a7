// Ratios of every row of one cell to the fastest peer (wall median and CPU per call).

/**
 * Sets `ratioToBestPeer` and `cpuRatioToBestPeer` on each row of a cell that
 * has the figure; peers are the rows with `peer` and status "ok".
 * @param {any[]} rows
 */
export function rankAgainstPeers(rows) {
  const best = (/** @type {string} */ key) => {
    const xs = rows.filter((r) => r.peer && r.status === "ok" && Number.isFinite(r[key])).map((r) => r[key]);
    return xs.length ? Math.min(...xs) : NaN;
  };
  const bestPeer = best("medianUs");
  const bestPeerCpu = best("cpuPerCallUs");
  for (const r of rows) {
    if (Number.isFinite(r.medianUs)) r.ratioToBestPeer = r.medianUs / bestPeer;
    if (Number.isFinite(r.cpuPerCallUs)) r.cpuRatioToBestPeer = r.cpuPerCallUs / bestPeerCpu;
  }
}
