import os
import urllib.parse
import time
import random
from pathlib import Path
from langchain.document_loaders import PyPDFLoader
from langchain.text_splitter import RecursiveCharacterTextSplitter
from langchain_openai import OpenAIEmbeddings
from langchain_community.vectorstores import FAISS
from langchain_community.embeddings import HuggingFaceEmbeddings
from openai import RateLimitError, APIError, APIConnectionError

class PDFProcessor:
    def __init__(self, api_key):
        self.api_key = api_key
        self.openai_embeddings = OpenAIEmbeddings(openai_api_key=api_key)
        # Initialize a fallback local embedding model
        self.local_embeddings = None  # Will be initialized on demand
        self.current_embeddings = self.openai_embeddings
        self.using_fallback = False
        
        self.text_splitter = RecursiveCharacterTextSplitter(
            chunk_size=2000,
            chunk_overlap=200,
            separators=["\n\n", "\n", ".", "!", "?", ";", " ", ""]
        )
    
    def _initialize_local_embeddings(self):
        """Initialize the local embedding model when needed"""
        try:
            # Use a small, fast model for embeddings
            print("Initializing local embedding model (this may take a moment)...")
            self.local_embeddings = HuggingFaceEmbeddings(
                model_name="all-MiniLM-L6-v2"
            )
            print("Local embedding model initialized successfully")
            return True
        except Exception as e:
            print(f"Failed to initialize local embeddings: {str(e)}")
            return False
            
    def check_local_embeddings_available(self):
        """Check if local embeddings can be initialized"""
        if self.local_embeddings is not None:
            return True
        return self._initialize_local_embeddings()
    
    def switch_to_local_embeddings(self):
        """Switch to local embeddings model as fallback"""
        if self.local_embeddings is None:
            success = self._initialize_local_embeddings()
            if not success:
                return False
                
        self.current_embeddings = self.local_embeddings
        self.using_fallback = True
        return True
        
    def process(self, file_path):
        """Process a PDF file and return chunked text with embeddings"""
        max_retries = 5
        base_delay = 1
        
        try:
            # Ensure we have a valid local file path
            file_path = os.path.abspath(file_path)
            
            # Verify the file exists before attempting to load it
            if not os.path.isfile(file_path):
                raise FileNotFoundError(f"File not found: {file_path}")
                
            loader = PyPDFLoader(file_path)
            pages = loader.load()
            chunks = self.text_splitter.split_documents(pages)
            
            # Create vector store from the chunks with retry logic
            for attempt in range(max_retries):
                try:
                    vectorstore = FAISS.from_documents(chunks, self.current_embeddings)
                    
                    # Return both chunks and vectorstore for semantic search
                    return {
                        'chunks': chunks,
                        'vectorstore': vectorstore,
                        'using_fallback': self.using_fallback
                    }
                except RateLimitError as e:
                    if attempt < max_retries - 1:
                        # Calculate exponential backoff with jitter
                        delay = base_delay * (2 ** attempt) + random.uniform(0, 1)
                        print(f"Rate limit hit, retrying in {delay:.2f} seconds...")
                        time.sleep(delay)
                    else:
                        # Try switching to local embeddings
                        print("Rate limit exceeded, attempting to switch to local embeddings...")
                        if self.switch_to_local_embeddings():
                            print("Switched to local embeddings model")
                            continue
                        else:
                            raise Exception(f"Rate limit exceeded and failed to switch to local embeddings: {str(e)}")
                except APIError as e:
                    error_message = str(e)
                    if "insufficient_quota" in error_message:
                        # Try switching to local embeddings
                        print("OpenAI API quota exceeded, attempting to switch to local embeddings...")
                        if self.switch_to_local_embeddings():
                            print("Switched to local embeddings model")
                            continue
                        else:
                            raise Exception("OpenAI API quota exceeded and failed to switch to local embeddings. Please check your billing details or upgrade your plan at https://platform.openai.com/account/billing")
                    else:
                        # For other API errors, retry with backoff
                        if attempt < max_retries - 1:
                            delay = base_delay * (2 ** attempt) + random.uniform(0, 1)
                            print(f"API error, retrying in {delay:.2f} seconds...")
                            time.sleep(delay)
                        else:
                            # Try switching to local embeddings
                            print("API error, attempting to switch to local embeddings...")
                            if self.switch_to_local_embeddings():
                                print("Switched to local embeddings model")
                                continue
                            else:
                                raise Exception(f"API error and failed to switch to local embeddings: {error_message}")
                except APIConnectionError as e:
                    if attempt < max_retries - 1:
                        delay = base_delay * (2 ** attempt) + random.uniform(0, 1)
                        print(f"Connection error, retrying in {delay:.2f} seconds...")
                        time.sleep(delay)
                    else:
                        # Try switching to local embeddings
                        print("Connection error, attempting to switch to local embeddings...")
                        if self.switch_to_local_embeddings():
                            print("Switched to local embeddings model")
                            continue
                        else:
                            raise Exception(f"Connection error and failed to switch to local embeddings: {str(e)}")
                except Exception as e:
                    # For other errors, don't retry
                    raise
                    
        except Exception as e:
            raise Exception(f"Error processing PDF {file_path}: {str(e)}")
