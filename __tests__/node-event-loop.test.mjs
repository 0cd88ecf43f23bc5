// The event-loop cases of __tests__/fixtures/node/event-loop/, compared with what Node printed.
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("event-loop");
