import { Sandbox, tool } from "cordon";
import { z } from "zod";

const sb = await Sandbox.create({
  tools: [
    tool({ name: "get_weather", description: "Weather of a city", inputSchema: z.object({ city: z.string() }),
           execute: async ({ city }) => ({ city, tempC: 21 }) }),
    tool({ name: "stripe.charges.create", execute: async (args) => stripe.charges.create(args) }),
  ],
  capabilities: [
    { method: "get_weather" },
    { method: "stripe.charges.*", maxCalls: 100, params: ["amount", "currency", "description"],
      constraints: [{ param: "amount", op: "<=", value: 10000 }, { param: "currency", op: "in", value: ["USD", "EUR"] }] },
  ],
});
await sb.run(`
  const w = await get_weather({ city: "SF" });
  const charge = await stripe.charges.create({ amount: 500, currency: "USD" });
  try { await stripe.charges.create({ amount: 50000, currency: "USD" }) }
  catch (e) { console.log(e.code, e.reason, e.message) }
  // DENIED constraint stripe.charges.create denied: amount must be <= 10000, got 50000
`);
