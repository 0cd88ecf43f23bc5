// W6's data file, as bench/workloads/workloads.json describes its layout:
// shared by bench/run.mjs and bench/ab.mjs so both time the same bytes.
export function w6Data(w6) {
  const objects = Array.from({ length: w6.data.objects }, (_, i) => ({
    id: i,
    name: "user-" + i,
    v: (i * 7919) % 1000,
    tag: "tag-" + (i % 37),
    pad: "x".repeat(w6.data.padLength),
  }));
  return "[\n" + objects.map((o) => JSON.stringify(o)).join(",\n") + "\n]\n";
}
