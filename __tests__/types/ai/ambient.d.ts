// What the README's examples take as given.
import type { LanguageModel, Tool } from "ai";

declare global {
  const model: LanguageModel;
  const prompt: string;
  const get_weather: Tool<{ city: string }, { city: string; tempC: number }>;
}
