import type { Config } from "tailwindcss";

export default {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        // Text on these passes WCAG AA contrast on white and on slate-50.
        brand: { DEFAULT: "#1d4ed8", dark: "#1e3a8a" },
      },
    },
  },
} satisfies Config;
