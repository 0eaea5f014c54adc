;;; llm-patch.el --- Apply an LLM's reply with the llm-patch language server, through eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages

;;; Commentary:

;; A recipe for eglot (built into Emacs 29 and later; on Emacs 28 install the `eglot'
;; package, on Debian `apt install elpa-eglot').  Put this file on `load-path' and
;;
;;     (require 'llm-patch)
;;
;; Replies saved as *.llm.md open in `llm-patch-reply-mode' (Markdown when markdown-mode
;; is installed, else text) and start the server.  In a reply, `M-x eglot-code-actions'
;; offers "Apply LLM patch (N edits in M files)"; `M-x llm-patch-apply' and
;; `M-x llm-patch-check' run the whole reply and show the report.
;;
;; Before each edit eglot asks "Server wants to edit: ... Proceed?" as long as
;; `eglot-confirm-server-initiated-edits' is `confirm' (its default; Emacs 30 also offers
;; `diff', which shows the change first).  Keep it: an LLM's edit deserves a look.
;;
;; Eglot gives a buffer to one server only, so your source buffers stay with their own
;; language servers.  The recipe shares their text with llm-patch itself: before each
;; request that plans (code actions, lenses, commands) and after each edit it applies,
;; every file buffer of the project is sent to llm-patch (`didOpen' once, then
;; `didChange' with the whole text when it changed), so edits are planned on what you see, and a check after an apply says "already applied" without a
;; save.  Lines inserted into a CRLF (`dos') buffer are inserted without their CR, which
;; Emacs adds when it saves.  Eglot 1.9 (Emacs 28) cannot create, delete or move files
;; through a server's edit; replies that do are refused, and `llm-patch apply' on the
;; command line does them.  When the server refuses to delete or move a buffer's unsaved
;; work without having asked, the recipe asks whether to save it first and apply again.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'project)
(require 'subr-x)

(declare-function markdown-mode "markdown-mode")

(defgroup llm-patch nil
  "Apply the edits of an LLM's reply with the llm-patch language server."
  :group 'tools
  :prefix "llm-patch-")

(defcustom llm-patch-server-command '("llm-patch" "serve")
  "The program that runs the server, and its arguments."
  :type '(repeat string))

;;;; Reply documents

(if (require 'markdown-mode nil t)
    (define-derived-mode llm-patch-reply-mode markdown-mode "LLM-Reply"
      "A model's reply, whose edit blocks llm-patch places (Markdown).")
  (define-derived-mode llm-patch-reply-mode text-mode "LLM-Reply"
    "A model's reply, whose edit blocks llm-patch places."))

(add-to-list 'auto-mode-alist '("\\.llm\\.md\\'" . llm-patch-reply-mode))
(add-hook 'llm-patch-reply-mode-hook #'eglot-ensure)

;;;; The server

(defclass llm-patch-eglot-server (eglot-lsp-server) ()
  :documentation "The llm-patch server: its commands get the editor's context.")

(defun llm-patch--contact (&optional _interactive)
  "How eglot starts the server (read when it starts, so a changed command counts)."
  (cons 'llm-patch-eglot-server llm-patch-server-command))

(add-to-list 'eglot-server-programs '(llm-patch-reply-mode . llm-patch--contact))

(defconst llm-patch--reply-commands '("llmPatch.apply" "llmPatch.check" "llmPatch.applyBlock")
  "The commands whose first argument names a reply, and takes `target' and `dirty'.")

(defun llm-patch--uri (file)
  "FILE as a URI, the way eglot spells it."
  (if (fboundp 'eglot-path-to-uri)
      (eglot-path-to-uri file)
    (eglot--path-to-uri file)))

(defun llm-patch--root ()
  "The folder the server plans against: the project's, else the current directory."
  (let ((project (project-current nil)))
    (file-truename (if project (project-root project) default-directory))))

(defun llm-patch--managed-by (server buffer)
  "Whether SERVER has BUFFER's text (it manages the buffer)."
  (with-current-buffer buffer
    (and (bound-and-true-p eglot--managed-mode) (eq (eglot-current-server) server))))

(defun llm-patch-unsynced-buffers (server)
  "URIs of file buffers under the project with unsaved changes SERVER lacks."
  (let ((root (llm-patch--root)))
    (cl-loop for buffer in (buffer-list)
             for file = (buffer-file-name buffer)
             when (and file
                       (buffer-modified-p buffer)
                       (file-in-directory-p file root)
                       (not (llm-patch--managed-by server buffer)))
             collect (llm-patch--uri file))))

(defun llm-patch-target ()
  "URI of the file a block without a path applies to.
That is the most recently selected file buffer under the project
that is not a reply."
  (let ((root (llm-patch--root))
        (reply (current-buffer)))
    (cl-loop for buffer in (buffer-list)
             for file = (buffer-file-name buffer)
             when (and file
                       (not (eq buffer reply))
                       (not (with-current-buffer buffer
                              (derived-mode-p 'llm-patch-reply-mode)))
                       (file-in-directory-p file root))
             return (llm-patch--uri file))))

(defun llm-patch--with-context (server command arguments)
  "ARGUMENTS of COMMAND with the editor's `dirty' buffers and `target' added."
  (let ((args (append arguments nil)))
    (if (and (member (format "%s" command) llm-patch--reply-commands)
             args
             (listp (car args)))
        (let ((first (copy-sequence (car args)))
              (dirty (llm-patch-unsynced-buffers server))
              (target (llm-patch-target)))
          (when dirty
            (setq first (plist-put first :dirty (vconcat dirty))))
          (when (and target (not (plist-member first :target)))
            (setq first (plist-put first :target target)))
          (vconcat (cons first (cdr args))))
      arguments)))

(cl-defmethod eglot-execute-command :around
  ((server llm-patch-eglot-server) command arguments)
  "Send COMMAND with the editor's context added to ARGUMENTS.
Eglot before 1.16 runs a code action's command here.  When the server refuses
to delete or move a buffer's unsaved work, ask to save it and run it again."
  (let ((report (cl-call-next-method server command
                                     (llm-patch--with-context server command arguments))))
    (if (and (member (format "%s" command) llm-patch--reply-commands)
             (listp report)
             (llm-patch--save-first (llm-patch--unsaved-refusal report)))
        (cl-call-next-method server command (llm-patch--with-context server command arguments))
      report)))

(when (fboundp 'eglot-execute)
  ;; eglot 1.16 and later (Emacs 30) run a code action's command through `eglot-execute'
  (cl-defmethod eglot-execute :around ((server llm-patch-eglot-server) action)
    "Run ACTION with the editor's context added to an llm-patch command."
    (let* ((command (or (plist-get action :command) action))
           (name (and (listp command) (plist-get command :command))))
      (if (and (stringp name) (member name llm-patch--reply-commands))
          (let ((command (plist-put (copy-sequence command) :arguments
                                    (llm-patch--with-context
                                     server name (plist-get command :arguments)))))
            (cl-call-next-method
             server (if (eq command action) command
                      (plist-put (copy-sequence action) :command command))))
        (cl-call-next-method)))))

;;;; Sharing the buffers eglot gives to other servers

(defvar-local llm-patch--shared nil
  "The llm-patch server this buffer's text was sent to (not managing it), or nil.")

(defvar-local llm-patch--shared-tick nil
  "`buffer-chars-modified-tick' when the text was last sent.")

(defun llm-patch--bump-version (&rest _)
  "Count a change of a shared buffer no server manages.
Eglot checks an edit's pinned version against
`eglot--versioned-identifier', which only a managing server would advance:
a change typed after the plan then refuses the edit instead of shifting it."
  (unless (bound-and-true-p eglot--managed-mode)
    (cl-incf eglot--versioned-identifier)))

(defun llm-patch--unshare ()
  "Tell the server a shared buffer is gone (it reads the file from disk again)."
  (when (and llm-patch--shared (jsonrpc-running-p llm-patch--shared))
    (ignore-errors
      (jsonrpc-notify llm-patch--shared :textDocument/didClose
                      (list :textDocument (list :uri (llm-patch--uri buffer-file-name))))))
  (setq llm-patch--shared nil))

(defun llm-patch--share-buffer (server)
  "Send the current buffer's text to SERVER: opened once, then changed."
  (let ((uri (llm-patch--uri buffer-file-name))
        (text (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max)))))
    (if (not (eq llm-patch--shared server))
        (progn
          (setq llm-patch--shared server)
          (add-hook 'after-change-functions #'llm-patch--bump-version nil t)
          (add-hook 'kill-buffer-hook #'llm-patch--unshare nil t)
          (jsonrpc-notify server :textDocument/didOpen
                          (list :textDocument
                                (list :uri uri :version eglot--versioned-identifier
                                      :languageId "plaintext" :text text))))
      (jsonrpc-notify server :textDocument/didChange
                      (list :textDocument (list :uri uri :version eglot--versioned-identifier)
                            :contentChanges (vector (list :text text)))))
    (setq llm-patch--shared-tick (buffer-chars-modified-tick))))

(defun llm-patch-share (server)
  "Send SERVER the text of the project's file buffers it does not manage.
Each is opened once and sent again when it changed: the server then plans on
what the buffers hold (unsaved changes, or a file changed on disk that the
buffer was not reverted to), not on the files on disk."
  (let ((root (llm-patch--root)))
    (dolist (buffer (buffer-list))
      (let ((file (buffer-file-name buffer)))
        (when (and file (file-in-directory-p file root)
                   (not (llm-patch--managed-by server buffer)))
          (with-current-buffer buffer
            (unless (and (eq llm-patch--shared server)
                         (eql llm-patch--shared-tick (buffer-chars-modified-tick)))
              (llm-patch--share-buffer server))))))))

(defconst llm-patch--planning-methods
  '("textDocument/codeAction" "textDocument/codeLens" "workspace/executeCommand")
  "Requests the server answers by planning a reply against the documents it has.")

(cl-defmethod jsonrpc-connection-send :before
  ((server llm-patch-eglot-server) &rest args &key method id &allow-other-keys)
  "Share the buffers before a request that plans (see `llm-patch-share')."
  (ignore args)
  (when (and id (member (string-remove-prefix ":" (format "%s" method))
                        llm-patch--planning-methods))
    (llm-patch-share server)))

(defvar llm-patch--applying nil
  "Non-nil while eglot applies an edit from llm-patch.")

(defun llm-patch--without-cr (edits)
  "EDITS (TextEdit plists) with the CR of each CRLF in their new text removed.
In a buffer that is saved with CRLF line ends (`dos'), Emacs holds lines
without their CR and adds it on saving: a CR inserted with the text would be
saved as CR CR LF."
  (mapcar (lambda (edit)
            (let ((text (plist-get edit :newText)))
              (if (and (stringp text) (string-match-p "\r" text))
                  (plist-put (copy-sequence edit) :newText
                             (replace-regexp-in-string "\r\n?" "\n" text))
                edit)))
          edits))

(defun llm-patch--apply-text-edits (apply edits &rest rest)
  "Around `eglot--apply-text-edits' (APPLY EDITS REST).
Line ends as the buffer saves them."
  (apply apply
         (if (and llm-patch--applying
                  (memq (coding-system-eol-type buffer-file-coding-system) '(1 2)))
             (llm-patch--without-cr (append edits nil))
           edits)
         rest))

(advice-add 'eglot--apply-text-edits :around #'llm-patch--apply-text-edits)

(cl-defmethod eglot-handle-request :around
  ((server llm-patch-eglot-server) (_method (eql workspace/applyEdit)) &rest _)
  "Apply llm-patch's edit, then share the buffers it changed.
The server then sees the edit land, and a check right after it says
\"already applied\" without a save."
  (prog1 (let ((llm-patch--applying t)) (cl-call-next-method))
    (llm-patch-share server)))

;;;; Unsaved work a delete or move would take

(defun llm-patch--unsaved-refusal (report)
  "The files REPORT refused to delete or move because of unsaved changes.
A file the server already asked about (the user said no) is left out: the user
is asked once."
  (let (out)
    (dolist (block (append (plist-get report :blocks) nil))
      (let ((details (plist-get (plist-get block :error) :details)))
        (when (and details (eq (plist-get details :unsaved) t)
                   (not (eq (plist-get details :asked) t)))
          (cl-pushnew (plist-get details :path) out :test #'equal))))
    (nreverse out)))

(defun llm-patch--save-first (paths)
  "Ask whether to save the buffers of PATHS (project-relative); save them if so."
  (let* ((root (llm-patch--root))
         (buffers (delq nil (mapcar (lambda (p) (find-buffer-visiting (expand-file-name p root)))
                                    paths))))
    (when (and buffers
               (y-or-n-p (format "llm-patch: %s %s unsaved changes, and the patch deletes or moves %s on disk.  Save first, then apply? "
                                 (string-join paths ", ")
                                 (if (cdr paths) "have" "has")
                                 (if (cdr paths) "them" "it"))))
      (dolist (buffer buffers)
        (with-current-buffer buffer (save-buffer)))
      t)))

;;;; Commands

(defun llm-patch--server ()
  "The llm-patch server of the current reply buffer."
  (let ((server (eglot-current-server)))
    (unless (cl-typep server 'llm-patch-eglot-server)
      (user-error "No llm-patch server here: open a reply (*.llm.md) or M-x eglot"))
    server))

(defun llm-patch--run (command options)
  "Run COMMAND on the current reply with OPTIONS; show the report's summary."
  (let* ((server (llm-patch--server))
         (target (if buffer-file-name
                     (list :uri (llm-patch--uri buffer-file-name))
                   (list :text (buffer-substring-no-properties (point-min) (point-max)))))
         (report (eglot-execute-command server command
                                        (vector target (append options '(:quiet t)))))
         (summary (plist-get report :summary)))
    (message "llm-patch: %s" summary)
    report))

(defun llm-patch-apply (&optional partial)
  "Apply every edit block of the current reply.
With PARTIAL (prefix argument), apply the blocks that place even
when others fail."
  (interactive "P")
  (llm-patch--run 'llmPatch.apply (and partial '(:partial t))))

(defun llm-patch-check ()
  "Place every edit block of the current reply and report; change nothing."
  (interactive)
  (llm-patch--run 'llmPatch.check nil))

(provide 'llm-patch)
;;; llm-patch.el ends here
