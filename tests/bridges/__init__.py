"""The bridges (wire.bridges): AG-UI and the Vercel AI SDK, judged by their real clients."""
