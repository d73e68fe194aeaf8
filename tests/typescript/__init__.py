"""The TypeScript runtime (schemas/) run by node against wire's Python side."""
