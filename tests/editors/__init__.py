"""The editor plugins (editors/vscode, editors/nvim): their own tests, against the real server."""
