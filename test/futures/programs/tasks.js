// Task functions that the futures tests name by module reference ('<this file>#cube').
export function cube(x) {
  return x * x * x;
}

export async function later(ms, value) {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return value;
}

export default function describe(x) {
  return `default export saw ${JSON.stringify(x)}`;
}

export const notAFunction = 42;
