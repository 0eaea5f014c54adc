;;; e2e.el --- The eglot recipe against the real server, headless  -*- lexical-binding: t; -*-

;; emacs --batch -l editors/emacs/tests/e2e.el
;;
;; Opens a reply in a fresh workspace, runs the code action through eglot as a user picks
;; it, and checks the target buffer.  The server is $LLM_PATCH_SERVER (a JSON array), else
;; `llm-patch serve'.  Prints one line per check and "N passed, M failed"; exits non-zero
;; on a failure.

(require 'cl-lib)
(require 'json)

(defvar e2e-dir (file-name-directory (or load-file-name buffer-file-name)))
(load (expand-file-name "../llm-patch.el" e2e-dir) nil t)

(let ((env (getenv "LLM_PATCH_SERVER")))
  (when (and env (not (string-empty-p env)))
    (setq llm-patch-server-command (append (json-read-from-string env) nil))))

;; a server that starts slowly on a busy machine is still a server
(setq eglot-connect-timeout 120)

(defvar e2e-passed 0)
(defvar e2e-failed 0)
(defvar e2e-prompts nil "What eglot asked, newest first.")
(defvar e2e-answer t "The answer the stubbed `y-or-n-p' gives.")

;; eglot asks before each edit: record the question and answer as a user would
(advice-add 'y-or-n-p :override
            (lambda (prompt &rest _) (push prompt e2e-prompts) e2e-answer))

(defun e2e-check (name ok &optional detail)
  (if ok
      (progn (cl-incf e2e-passed) (princ (format "ok   %s\n" name)))
    (cl-incf e2e-failed)
    (princ (format "FAIL %s%s\n" name (if detail (format "\n     %S" detail) "")))))

(defun e2e-messages ()
  (with-current-buffer (messages-buffer) (buffer-string)))

(defvar e2e-root
  (file-name-as-directory (file-truename (make-temp-file "llm-patch-emacs-" t))))

;; a project as users have one: a git repository (project.el finds its root by it)
(unless (eq 0 (ignore-errors (call-process "git" nil nil nil "init" "-q" e2e-root)))
  (make-directory (expand-file-name ".git" e2e-root)))

(defun e2e-write (rel text)
  (let ((file (expand-file-name rel e2e-root)))
    (make-directory (file-name-directory file) t)
    (with-temp-file file (insert text))
    file))

(defun e2e-file-text (rel)
  (with-temp-buffer
    (insert-file-contents (expand-file-name rel e2e-root))
    (buffer-string)))

(defun e2e-file-bytes (rel)
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally (expand-file-name rel e2e-root))
    (buffer-string)))

(defvar e2e-race-buffer nil)
(defvar e2e-race-typed nil)
(defun e2e-type-in-race (&rest _)
  "A line typed into `e2e-race-buffer' after the plan, right before eglot applies the edit."
  (unless e2e-race-typed
    (setq e2e-race-typed t)
    (with-current-buffer e2e-race-buffer
      (goto-char (point-min))
      (insert "# typed\n"))))

(defun e2e-sr (path search replace)
  (format "%s\n```\n<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n```\n" path search replace))

(defun e2e-open-reply (rel text)
  "Visit a reply and connect the server the way `eglot-ensure' does after a command."
  (let ((buffer (find-file-noselect (e2e-write rel text))))
    (with-current-buffer buffer
      (unless (eglot-current-server)
        (apply #'eglot--connect (eglot--guess-contact)))
      (unless (eglot-managed-p)
        (eglot--maybe-activate-editing-mode)))
    buffer))

(defun e2e-code-action (reply)
  "What the user does: `M-x eglot-code-actions' on the reply, choosing Apply."
  (with-current-buffer reply
    (eglot-code-actions (point-min) (point-max) "refactor.rewrite.llmPatch" t)))

(unwind-protect
    (condition-case err
        (progn
          ;; ---- the reply mode starts the server
          (e2e-write "src/i18n.py" "LABEL = 'count'\nCOUNT = 1\n")
          (let* ((target (find-file-noselect (expand-file-name "src/i18n.py" e2e-root)))
                 (reply (e2e-open-reply
                         "notes/reply.llm.md"
                         (concat "Set the count:\n\n"
                                 (e2e-sr "src/i18n.py" "COUNT = 1\n" "COUNT = 3\n"))))
                 (server (with-current-buffer reply (eglot-current-server))))
            (e2e-check "a *.llm.md file opens in llm-patch-reply-mode"
                       (with-current-buffer reply (derived-mode-p 'llm-patch-reply-mode)))
            (e2e-check "the llm-patch server manages the reply"
                       (cl-typep server 'llm-patch-eglot-server))

            ;; ---- declining eglot's confirmation changes nothing
            (setq e2e-prompts nil e2e-answer nil)
            (ignore-errors (e2e-code-action reply))
            (e2e-check "eglot asks before the edit"
                       (cl-some (lambda (p) (string-match-p "Server wants to edit" p)) e2e-prompts)
                       e2e-prompts)
            (e2e-check "a declined edit leaves the buffer alone"
                       (equal (with-current-buffer target (buffer-string))
                              "LABEL = 'count'\nCOUNT = 1\n"))

            ;; ---- the code action edits the target buffer, unsaved
            (setq e2e-prompts nil e2e-answer t)
            (e2e-code-action reply)
            (e2e-check "the code action edits the target buffer"
                       (equal (with-current-buffer target (buffer-string))
                              "LABEL = 'count'\nCOUNT = 3\n")
                       (with-current-buffer target (buffer-string)))
            (e2e-check "the edit is in the buffer, not yet on disk"
                       (and (buffer-modified-p target)
                            (equal (e2e-file-text "src/i18n.py") "LABEL = 'count'\nCOUNT = 1\n")))
            (e2e-check "one undo restores the buffer"
                       (with-current-buffer target
                         (let ((last-command nil))
                           (undo-boundary) ; what the command loop adds after a command
                           (undo-only)
                           (equal (buffer-string) "LABEL = 'count'\nCOUNT = 1\n")))
                       (with-current-buffer target (buffer-string)))
            (with-current-buffer target (set-buffer-modified-p nil))

            ;; ---- a buffer with unsaved changes is shared: the edit lands on what it holds
            (with-current-buffer target
              (goto-char (point-min))
              (insert "# unsaved\n# lines\n"))
            (e2e-code-action reply)
            (e2e-check "a modified buffer eglot gives another server is shared: the edit lands below its unsaved lines"
                       (equal (with-current-buffer target (buffer-string))
                              "# unsaved\n# lines\nLABEL = 'count'\nCOUNT = 3\n")
                       (list (with-current-buffer target (buffer-string)) (e2e-messages)))
            (e2e-check "nothing written to disk"
                       (equal (e2e-file-text "src/i18n.py") "LABEL = 'count'\nCOUNT = 1\n"))
            (e2e-check "the server says which files changed and which are unsaved"
                       (string-match-p "applied 1 edit in 1 file: src/i18n.py; not saved yet: src/i18n.py"
                                       (e2e-messages)))

            ;; ---- M-x llm-patch-check right after, unsaved: already applied
            (let ((report (with-current-buffer reply (llm-patch-check))))
              (e2e-check "llm-patch-check after an apply, nothing saved: already applied"
                         (equal (plist-get report :summary)
                                "nothing to change: 1 edit already applied.")
                         (plist-get report :summary)))
            ;; typed after the check: the next plan sees it too
            (with-current-buffer target
              (goto-char (point-max))
              (insert "EXTRA = 1\n"))
            (let ((report (with-current-buffer reply (llm-patch-check))))
              (e2e-check "llm-patch-check after more typing: still already applied"
                         (equal (plist-get report :summary)
                                "nothing to change: 1 edit already applied.")
                         (plist-get report :summary)))
            (with-current-buffer target (save-buffer))

            ;; ---- the target: the most recent file buffer that is not the reply
            (with-current-buffer reply
              (e2e-check "the target is the last file buffer used"
                         (equal (llm-patch-target) (llm-patch--uri (buffer-file-name target)))
                         (llm-patch-target)))
            ;; ---- a pasted snippet without a path goes to the buffer last used
            (let* ((app "def compute(x):\n    return x + 1\n")
                   (app-buffer (progn (e2e-write "lib/copy.py" app)
                                      (find-file-noselect (e2e-write "src/app.py" app))))
                   (snippet (e2e-open-reply
                             "notes/snippet.llm.md"
                             (concat "Validate it:\n\n```python\ndef compute(x):\n"
                                     "    if x < 0:\n        raise ValueError(x)\n"
                                     "    return x + 1\n```\n"))))
              (switch-to-buffer app-buffer)
              (switch-to-buffer snippet)
              (setq e2e-prompts nil)
              (e2e-code-action snippet)
              (e2e-check "a snippet lands in the buffer last used (the target)"
                         (string-match-p "raise ValueError"
                                         (with-current-buffer app-buffer (buffer-string)))
                         (with-current-buffer app-buffer (buffer-string)))
              (e2e-check "the other file defining it is left alone"
                         (equal (e2e-file-text "lib/copy.py") app)))
;; ---- typing between the plan and the edit: refused, never shifted
            (let* ((file (e2e-write "src/race.py" "A = 1\nB = 2\n"))
                   (race (find-file-noselect file))
                   (race-reply (e2e-open-reply
                                "notes/race.llm.md"
                                (concat "Bump B:\n\n" (e2e-sr "src/race.py" "B = 2\n" "B = 3\n")))))
              (setq e2e-race-buffer race e2e-race-typed nil e2e-answer t)
              (advice-add 'eglot--apply-workspace-edit :before #'e2e-type-in-race)
              (unwind-protect (ignore-errors (e2e-code-action race-reply))
                (advice-remove 'eglot--apply-workspace-edit #'e2e-type-in-race))
              (e2e-check "typing between the plan and the edit: typed, then the edit refused or placed right, never shifted"
                         (and e2e-race-typed
                              (member (with-current-buffer race (buffer-string))
                                      '("# typed\nA = 1\nB = 2\n" "# typed\nA = 1\nB = 3\n")))
                         (with-current-buffer race (buffer-string))))

            ;; ---- CRLF files keep exactly CRLF, open or not
            (dolist (open '(nil t))
              (let* ((how (if open "open" "not open"))
                     (file (e2e-write "src/dos.py" "a = 1\r\nb = 2\r\nc = 3\r\n"))
                     (_ (when open (find-file-noselect file)))
                     (dos-reply (e2e-open-reply
                                 (format "notes/dos-%s.llm.md" (if open "open" "closed"))
                                 (concat "Add lines:\n\n"
                                         (e2e-sr "src/dos.py" "b = 2\n" "b = 2\ny = x + 1\nz = 4\n")))))
                (setq e2e-answer t)
                (e2e-code-action dos-reply)
                (let ((buffer (find-buffer-visiting file)))
                  (when buffer (with-current-buffer buffer (save-buffer))))
                (e2e-check (format "CRLF (%s): the saved file has exactly \\r\\n line ends" how)
                           (equal (e2e-file-bytes "src/dos.py")
                                  "a = 1\r\nb = 2\r\ny = x + 1\r\nz = 4\r\nc = 3\r\n")
                           (e2e-file-bytes "src/dos.py"))
                (let ((buffer (find-buffer-visiting file)))
                  (when buffer (kill-buffer buffer)))))

            ;; ---- a delete of a buffer with unsaved changes: asked, nothing lost
            (let* ((file (e2e-write "src/old.py" "x = 1\n"))
                   (old (find-file-noselect file))
                   (del-reply (e2e-open-reply
                               "notes/delete.llm.md"
                               "Remove it:\n\n```\n*** Begin Patch\n*** Delete File: src/old.py\n*** End Patch\n```\n")))
              (with-current-buffer old (goto-char (point-max)) (insert "y = 2  # unsaved\n"))
              (setq e2e-prompts nil e2e-answer nil)
              (ignore-errors (with-current-buffer del-reply (llm-patch-apply)))
              (e2e-check "delete of an unsaved buffer: nothing lost (the file and the buffer's work stay)"
                         (and (equal (e2e-file-text "src/old.py") "x = 1\n")
                              (buffer-live-p old)
                              (equal (with-current-buffer old (buffer-string)) "x = 1\ny = 2  # unsaved\n"))
                         (list e2e-prompts (e2e-messages)))
              (e2e-check "delete of an unsaved buffer: the user is told or asked, naming the file"
                         (or (cl-some (lambda (p) (string-match-p "src/old.py" p)) e2e-prompts)
                             (string-match-p "src/old.py" (e2e-messages)))
                         (list e2e-prompts (e2e-messages)))
              (e2e-check "delete of an unsaved buffer: asked at most once"
                         (<= (cl-count-if (lambda (p) (string-match-p "src/old.py" p)) e2e-prompts) 1)
                         e2e-prompts))

            (ignore-errors (eglot-shutdown server))))
      (error (e2e-check "no error" nil err)))
  (delete-directory e2e-root t))

(princ (format "%d passed, %d failed\n" e2e-passed e2e-failed))
(kill-emacs (if (zerop e2e-failed) 0 1))

;;; e2e.el ends here
