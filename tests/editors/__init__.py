"""The editor plugins (editors/vscode, editors/nvim): their own tests, run against the real server."""
