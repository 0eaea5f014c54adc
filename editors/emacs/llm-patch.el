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
;; language servers and llm-patch reads those files from disk.  An edit planned from disk
;; would land on the wrong lines of a buffer with unsaved changes, so every command sent
;; to llm-patch lists those buffers as `dirty': a block on one is refused, asking you to
;; save it first.  Eglot 1.9 (Emacs 28) cannot create, delete or move files through a
;; server's edit; replies that do are refused, and `llm-patch apply' on the command line
;; does them.

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
Eglot before 1.16 runs a code action's command here."
  (cl-call-next-method server command (llm-patch--with-context server command arguments)))

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
