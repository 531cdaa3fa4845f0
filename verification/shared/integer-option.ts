/** An integer command-line option of at least `min`, or an error naming the flag. */
export function integerOption<T extends Record<string, unknown>>(values: T, name: keyof T & string, min: number) {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer of at least ${min}`);
  return value;
}
