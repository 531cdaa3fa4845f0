import type { Config } from "tailwindcss";

// Colours live in app/globals.css (@theme and its dark-mode block), as CSS variables, so that one
// place decides them for both colour schemes.
export default {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
} satisfies Config;
